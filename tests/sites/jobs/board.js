// The position is posted on the employer's own site: the same server under the name localhost
// (another site than 127.0.0.1, as a real board's links lead elsewhere).
const link = document.getElementById('elsewhere');
link.href = new URL('apply.html', location.href.replace('//127.0.0.1', '//localhost')).href;
