// Links to the other sites of a multi-site task: ?shop=ORIGIN and ?other=ORIGIN name them.
const params = new URLSearchParams(location.search);
for (const link of document.querySelectorAll('a[data-site]')) {
  link.href = `${params.get(link.dataset.site) ?? ''}${link.dataset.path}`;
}
