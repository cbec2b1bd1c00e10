// jQuery UI's interactions as its demos set them up: a sortable list, a draggable and a droppable
// (whose drop callback records what was dropped), and a slider (0 to 100 over 400 px).
{
  $('#steps').sortable();
  $('#parcel').draggable({ revert: 'invalid' });
  $('#truck').droppable({
    accept: '#parcel',
    drop: (event, ui) => {
      window.loaded = ui.draggable.attr('id');
      $('#loaded').text(ui.draggable.text());
    },
  });
  $('#volume').slider({ min: 0, max: 100, value: 20 });
}
