// Marks the page ready once its widgets are set up (deferred scripts run in order, this one last).
document.body.dataset.ready = 'yes';
