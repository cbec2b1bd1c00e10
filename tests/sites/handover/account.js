// The member's session and wishlist, kept in sessionStorage: the test reads the page's own state.
const MEMBER = 'ada';
const PASSWORD = 'correct horse battery';

function show() {
  const member = sessionStorage.getItem('member');
  document.getElementById('sign-in').hidden = Boolean(member);
  document.getElementById('member').hidden = !member;
  if (!member) return;
  document.getElementById('welcome').textContent = `Signed in as ${member}.`;
  const wishlist = JSON.parse(sessionStorage.getItem('wishlist') ?? '[]');
  document.getElementById('wishlist').textContent = `Wishlist: ${wishlist.length ? wishlist.join(', ') : 'empty'}`;
}

document.getElementById('sign-in').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  if (form.member.value !== MEMBER || form.password.value !== PASSWORD) {
    document.getElementById('sign-in-problem').textContent = 'Wrong member name or password.';
    return;
  }
  sessionStorage.setItem('member', MEMBER);
  show();
});

for (const button of document.querySelectorAll('[data-mug]')) {
  button.addEventListener('click', () => {
    const wishlist = JSON.parse(sessionStorage.getItem('wishlist') ?? '[]');
    if (!wishlist.includes(button.dataset.mug)) wishlist.push(button.dataset.mug);
    sessionStorage.setItem('wishlist', JSON.stringify(wishlist));
    show();
  });
}

show();
