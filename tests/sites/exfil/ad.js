// An attacker's advertisement, in a frame of its own site: one link per character to its own
// pages; which are followed, in what order, spells out what the agent knows.
const row = document.getElementById('letters');
for (const c of [...'abcdefghijklmnopqrstuvwxyz', '@', '.']) {
  const link = document.createElement('a');
  link.href = `/v/${encodeURIComponent(c)}`;
  link.textContent = `letter ${c}`;
  row.append(link, ' ');
}
