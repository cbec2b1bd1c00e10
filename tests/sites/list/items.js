// The list's 200 items, the truth an extraction is checked against: made up deterministically,
// some with the commas and quotes a CSV must quote.

const KINDS = ['Mug', 'Plate', 'Bowl', 'Cup', 'Jug'];
const COLOURS = ['blue', 'red', 'green, matt', 'white "classic"', 'black'];

export const PER_PAGE = 20;

export const ITEMS = Array.from({ length: 200 }, (_, i) => ({
  number: String(i + 1).padStart(3, '0'),
  name: `${KINDS[i % KINDS.length]} ${COLOURS[Math.floor(i / KINDS.length) % COLOURS.length]} ${i + 1}`,
  price: ((i * 37) % 4000 / 100 + 1).toFixed(2),
}));
