// What the end-to-end tests share: the shop task, its script, and a port surely closed.

import { createServer } from 'node:net';

export const SHOP_TASK = 'add the blue mug to the cart, then tell me the cart total';

/** The scripted model's replies for the shop task, starting from the shop's home page. */
export function shopScript(origin) {
  return [
    { next_goal: 'Open the mugs page', actions: [{ go_to_url: { url: `${origin}/shop/mugs.html` } }] },
    { next_goal: 'Filter for the blue mug', actions: [{ input_text: { target: 'Filter mugs', text: 'blue' } }] },
    { next_goal: 'Add the blue mug to the cart', actions: [{ click_element: { target: 'Add Blue mug to cart' } }] },
    {
      next_goal: 'Report the cart total',
      actions: [{ done: { text: 'The cart total is {{Cart total: (\\$[0-9.]+)}}', success: true } }],
    },
  ];
}

/** A loopback port with nothing listening, for an unreachable provider. */
export async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
