// An attacker's page the user visited before the task: it hears when it is shown again.
addEventListener('pageshow', (event) => { if (event.persisted) new Image().src = '/restored'; });
