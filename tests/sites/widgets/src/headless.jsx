// Headless UI components as an app would use them: each reports its value to the app's state.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  Combobox, ComboboxInput, ComboboxOption, ComboboxOptions,
  Listbox, ListboxButton, ListboxOption, ListboxOptions,
  Menu, MenuButton, MenuItem, MenuItems,
} from '@headlessui/react';

const people = ['Ada Lovelace', 'Grace Hopper', 'Margaret Hamilton', 'Katherine Johnson'];

function App() {
  const [assignee, setAssignee] = useState(people[0]);
  const [reviewer, setReviewer] = useState(null);
  const [query, setQuery] = useState('');
  const [action, setAction] = useState('nothing');
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  const matches = people.filter((p) => p.toLowerCase().includes(query.toLowerCase()));
  return (
    <main style={{ padding: 16, display: 'grid', gap: 16, maxWidth: 320 }}>
      <h1>Ticket</h1>
      <div>
        <span>Assignee</span>
        <Listbox value={assignee} onChange={setAssignee}>
          <ListboxButton>{assignee}</ListboxButton>
          <ListboxOptions anchor="bottom start" style={{ background: '#fff', border: '1px solid #ccc' }}>
            {people.map((p) => <ListboxOption key={p} value={p}>{p}</ListboxOption>)}
          </ListboxOptions>
        </Listbox>
        <output id="assignee">{assignee}</output>
      </div>
      <div>
        <Combobox value={reviewer} onChange={setReviewer} onClose={() => setQuery('')}>
          <ComboboxInput aria-label="Reviewer" placeholder="Find a reviewer" displayValue={(p) => p ?? ''}
            onChange={(e) => setQuery(e.target.value)} />
          <ComboboxOptions anchor="bottom start" style={{ background: '#fff', border: '1px solid #ccc' }}>
            {matches.map((p) => <ComboboxOption key={p} value={p}>{p}</ComboboxOption>)}
          </ComboboxOptions>
        </Combobox>
        <output id="reviewer">{reviewer ?? 'none'}</output>
      </div>
      <div>
        <Menu>
          <MenuButton>Ticket actions</MenuButton>
          <MenuItems anchor="bottom start" style={{ background: '#fff', border: '1px solid #ccc', display: 'grid' }}>
            <MenuItem><button onClick={() => setAction('duplicate')}>Duplicate</button></MenuItem>
            <MenuItem><button onClick={() => setAction('move')}>Move to backlog</button></MenuItem>
          </MenuItems>
        </Menu>
        <output id="action">{action}</output>
      </div>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
