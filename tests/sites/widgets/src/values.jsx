// Sliders and a number field from MUI and Ant Design, Headless UI's multiple Listbox and MUI's multiple Autocomplete, as an app uses them: each reports its value
// to the app's state, which the page shows.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import Autocomplete from '@mui/material/Autocomplete';
import Slider from '@mui/material/Slider';
import TextField from '@mui/material/TextField';
import { InputNumber, Slider as AntSlider } from 'antd';
import { Listbox, ListboxButton, ListboxOption, ListboxOptions } from '@headlessui/react';

const labels = ['Bug', 'Feature', 'Urgent', 'Docs'];

function App() {
  const [temperature, setTemperature] = useState(20);
  const [discount, setDiscount] = useState(10);
  const [rooms, setRooms] = useState(1);
  const [tags, setTags] = useState(['Bug']);
  const [cities, setCities] = useState([]);
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  return (
    <main style={{ padding: 16, display: 'grid', gap: 16, maxWidth: 360 }}>
      <h1>Booking preferences</h1>
      <Slider aria-label="Room temperature" value={temperature} onChange={(event, value) => setTemperature(value)}
        min={16} max={28} step={0.5} />
      <output id="temperature">{temperature}</output>
      <AntSlider ariaLabelForHandle="Discount" value={discount} onChange={setDiscount} min={0} max={50} />
      <output id="discount">{discount}</output>
      <InputNumber aria-label="Rooms" value={rooms} onChange={setRooms} min={1} max={8} />
      <output id="rooms">{rooms ?? 'none'}</output>
      <Listbox value={tags} onChange={setTags} multiple>
        <ListboxButton aria-label="Labels">{tags.join(', ') || 'No labels'}</ListboxButton>
        <ListboxOptions anchor="bottom start" style={{ background: '#fff', border: '1px solid #ccc' }}>
          {labels.map((label) => <ListboxOption key={label} value={label}>{label}</ListboxOption>)}
        </ListboxOptions>
      </Listbox>
      <output id="tags">{tags.join(',') || 'none'}</output>
      <Autocomplete multiple options={['Lisbon', 'Porto', 'Madrid', 'Rome']} value={cities}
        onChange={(event, value) => setCities(value)} renderInput={(params) => <TextField {...params} label="Cities to visit" />} />
      <output id="cities">{cities.join(',') || 'none'}</output>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
