// Ant Design components as an app would use them: each reports its value to the app's state.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Cascader, DatePicker, Select } from 'antd';
import dayjs from 'dayjs';

const regions = [
  { value: 'europe', label: 'Europe', children: [
    { value: 'portugal', label: 'Portugal', children: [{ value: 'porto', label: 'Porto' }, { value: 'lisbon', label: 'Lisbon' }] },
    { value: 'spain', label: 'Spain', children: [{ value: 'seville', label: 'Seville' }] },
  ] },
  { value: 'asia', label: 'Asia', children: [{ value: 'japan', label: 'Japan', children: [{ value: 'kyoto', label: 'Kyoto' }] }] },
];

function App() {
  const [plan, setPlan] = useState(null);
  const [place, setPlace] = useState([]);
  const [day, setDay] = useState(null);
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  return (
    <main style={{ padding: 16, display: 'grid', gap: 16, maxWidth: 320 }}>
      <h1>Booking</h1>
      <Select placeholder="Choose a plan" value={plan} onChange={setPlan} style={{ width: 240 }}
        options={[{ value: 'basic', label: 'Basic' }, { value: 'family', label: 'Family' }, { value: 'pro', label: 'Professional' }]} />
      <output id="plan">{plan ?? 'none'}</output>
      <Cascader placeholder="Choose a city" options={regions} value={place} onChange={(value) => setPlace(value ?? [])} style={{ width: 240 }} />
      <output id="place">{place.join('/') || 'none'}</output>
      <DatePicker placeholder="Choose a day" value={day} onChange={setDay} defaultPickerValue={dayjs('2031-07-01')} />
      <output id="day">{day ? day.format('YYYY-MM-DD') : 'none'}</output>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
