// An open redirect in a page's script, as many sign-in and "you are leaving" pages have: it
// sends the tab to whatever ?next= says.
const next = new URLSearchParams(location.search).get('next');
if (next) location.href = next;
