// React Select, as an app would use it: the chosen value lives in the app's state.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import Select from 'react-select';

const flavours = [
  { value: 'chocolate', label: 'Chocolate' },
  { value: 'strawberry', label: 'Strawberry' },
  { value: 'vanilla', label: 'Vanilla' },
  { value: 'pistachio', label: 'Pistachio' },
];

function App() {
  const [flavour, setFlavour] = useState(null);
  const [toppings, setToppings] = useState([]);
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  return (
    <main>
      <h1>Ice cream order</h1>
      <label htmlFor="flavour-input">Flavour</label>
      <Select inputId="flavour-input" options={flavours} value={flavour} onChange={setFlavour} placeholder="Choose a flavour" />
      <output id="flavour">{flavour?.value ?? 'none'}</output>
      <label htmlFor="toppings-input">Toppings</label>
      <Select inputId="toppings-input" isMulti options={[
        { value: 'nuts', label: 'Nuts' }, { value: 'sprinkles', label: 'Sprinkles' }, { value: 'sauce', label: 'Caramel sauce' },
      ]} value={toppings} onChange={setToppings} placeholder="Add toppings" />
      <output id="toppings">{toppings.map((t) => t.value).join(',') || 'none'}</output>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
