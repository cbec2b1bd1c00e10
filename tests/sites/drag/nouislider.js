// noUiSlider with two handles: a price range from 0 to 1,000 over 500 px, in steps of 10.
window.price = document.getElementById('price');
noUiSlider.create(window.price, {
  start: [200, 800],
  connect: true,
  step: 10,
  range: { min: 0, max: 1000 },
  handleAttributes: [{ 'aria-label': 'Lowest price' }, { 'aria-label': 'Highest price' }],
  format: { to: (value) => String(Math.round(value)), from: Number },
});
