// Controls that hold a number, as pages set them up (a deferred script: the page is parsed).
{
  // A jQuery UI spinner that, like the MiniWoB task's, takes no typing: only its arrows and keys.
  $('#visits').spinner({ min: -10, max: 10 }).val(0);
  $('#visits').on('keydown', (event) => event.preventDefault());

  // A jQuery UI slider with the ARIA state an accessible page gives its handle (jQuery UI gives none).
  const garden = $('#garden');
  const tell = (value) => {
    garden.find('.ui-slider-handle').attr({ role: 'slider', 'aria-label': 'Garden size', 'aria-valuemin': 0,
      'aria-valuemax': 200, 'aria-valuenow': value });
    $('#garden-value').text(value);
  };
  garden.slider({ min: 0, max: 200, step: 10, value: 50, slide: (event, ui) => tell(ui.value),
    change: (event, ui) => tell(ui.value) });
  tell(50);

  // The page follows its range input.
  $('#budget').on('change', (event) => $('#budget-value').text(event.target.value));

  // noUiSlider, its handle named as an app names it.
  noUiSlider.create(document.getElementById('distance'), {
    start: 20, step: 5, range: { min: 0, max: 100 }, handleAttributes: [{ 'aria-label': 'Walking distance' }],
  });
}
