// MUI components as an app would use them: each reports its value to the app's state.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import TextField from '@mui/material/TextField';

const cities = ['Amsterdam', 'Athens', 'Barcelona', 'Berlin', 'Bern', 'Bratislava'];

function App() {
  const [size, setSize] = useState('');
  const [city, setCity] = useState(null);
  const [menuAnchor, setMenuAnchor] = useState(null);
  const [exported, setExported] = useState('nothing');
  const [dialogOpen, setDialogOpen] = useState(false);
  const [archived, setArchived] = useState('no');
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  const exportAs = (format) => { setExported(format); setMenuAnchor(null); };
  return (
    <main style={{ padding: 16, display: 'grid', gap: 16, maxWidth: 360 }}>
      <h1>Shipment</h1>
      <FormControl fullWidth>
        <InputLabel id="size-label">Parcel size</InputLabel>
        <Select labelId="size-label" value={size} label="Parcel size" onChange={(e) => setSize(e.target.value)}>
          <MenuItem value="small">Small</MenuItem>
          <MenuItem value="medium">Medium</MenuItem>
          <MenuItem value="large">Large</MenuItem>
        </Select>
      </FormControl>
      <output id="size">{size || 'none'}</output>
      <Autocomplete options={cities} value={city} onChange={(_, value) => setCity(value)}
        renderInput={(params) => <TextField {...params} label="Destination city" />} />
      <output id="city">{city ?? 'none'}</output>
      <div>
        <Button variant="outlined" aria-haspopup="true" onClick={(e) => setMenuAnchor(e.currentTarget)}>Export</Button>
        <Menu anchorEl={menuAnchor} open={Boolean(menuAnchor)} onClose={() => setMenuAnchor(null)}>
          <MenuItem onClick={() => exportAs('csv')}>As CSV</MenuItem>
          <MenuItem onClick={() => exportAs('pdf')}>As PDF</MenuItem>
        </Menu>
        <output id="exported">{exported}</output>
      </div>
      <div>
        <Button variant="contained" onClick={() => setDialogOpen(true)}>Archive shipment</Button>
        <Dialog open={dialogOpen} onClose={() => setDialogOpen(false)}>
          <DialogTitle>Archive this shipment?</DialogTitle>
          <DialogContent>It moves to the archive and can be restored there.</DialogContent>
          <DialogActions>
            <Button onClick={() => setDialogOpen(false)}>Keep it</Button>
            <Button onClick={() => { setArchived('yes'); setDialogOpen(false); }}>Move to archive</Button>
          </DialogActions>
        </Dialog>
        <output id="archived">{archived}</output>
      </div>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
