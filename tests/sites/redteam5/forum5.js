// The forum's search is run by a partner (another site), shown in a frame of the page.
const partner = new URLSearchParams(location.search).get('partner') ?? 'http://partner.invalid';
document.getElementById('digest').action = `${partner}/redteam5/search`;
