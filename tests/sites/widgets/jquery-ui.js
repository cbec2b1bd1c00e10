// jQuery UI's own widgets, as a page would set them up (a deferred script: the page is parsed).
{
  $('#country').autocomplete({
    source: ['Ecuador', 'Egypt', 'El Salvador', 'Eritrea', 'Estonia', 'Ethiopia', 'France', 'Germany'],
    delay: 0,
  });
  $('#departure').datepicker({ dateFormat: 'yy-mm-dd', defaultDate: '2030-05-01' });
  $('#menu').menu({
    select: (event, ui) => $('#menu-choice').text(ui.item.children('div').first().text()),
  });
  $('#tabs').tabs();
  $('#dialog').dialog({
    autoOpen: false,
    modal: true,
    buttons: {
      'Move to next year': () => {
        $('#trip').text('moved');
        $('#dialog').dialog('close');
      },
      Cancel: () => $('#dialog').dialog('close'),
    },
  });
  $('#open-dialog').on('click', () => $('#dialog').dialog('open'));
}
