// The page's script (served as /dev/passkeys/page.js; a file of its own, so the page's policy needs no inline script).
export const PAGE_SCRIPT = `// The browser side of the passkey routes, for trying them (GET /dev/passkeys, development only). Each step is
// a function on window.passkeyDemo (the buttons call them; so can a console or a test), and prints its answer.
(function () {
  'use strict';
  const { startRegistration, startAuthentication } = window.SimpleWebAuthnBrowser;
  let accessToken;
  const out = document.getElementById('out');
  const show = (what, value) => {
    out.textContent = (what + ': ' + JSON.stringify(value, null, 2) + '\\n\\n' + out.textContent).slice(0, 20000);
    return value;
  };
  async function call(method, path, body) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (accessToken) headers.Authorization = 'Bearer ' + accessToken;
    const response = await fetch(path, { method, headers, credentials: 'include', body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const json = text ? JSON.parse(text) : null;
    return { status: response.status, body: json };
  }
  const signedIn = (answer) => {
    if (answer.status === 200 && answer.body.data.accessToken) accessToken = answer.body.data.accessToken;
    return answer;
  };
  const demo = {
    register: async (name, email, password) => show('register', await call('POST', '/api/auth/register', { name, email, password })),
    login: async (email, password) => show('login', signedIn(await call('POST', '/api/auth/login', { email, password }))),
    me: async () => show('me', await call('GET', '/api/users/me')),
    list: async () => show('passkeys', await call('GET', '/api/auth/passkeys')),
    addPasskey: async (password, name) => {
      const options = await call('POST', '/api/auth/passkeys/register/options', { password });
      if (options.status !== 200) return show('register options', options);
      const credential = await startRegistration({ optionsJSON: options.body.data });
      return show('register verify', await call('POST', '/api/auth/passkeys/register/verify', { credential, name }));
    },
    signUpWithPasskey: async (name, email, passkeyName) => {
      const options = await call('POST', '/api/auth/passkeys/signup/options', { email, name });
      if (options.status !== 200) return show('sign-up options', options);
      const credential = await startRegistration({ optionsJSON: options.body.data });
      return show('sign-up verify', await call('POST', '/api/auth/passkeys/signup/verify', { email, name, credential, passkeyName }));
    },
    remove: async (id) => {
      const answer = await call('DELETE', '/api/auth/passkeys/' + encodeURIComponent(id));
      // Every other session ended, this access token's too: the new refresh cookie gives the next one.
      if (answer.status === 204) signedIn(await call('POST', '/api/auth/refresh'));
      return show('remove', answer);
    },
    signInWithPasskey: async () => {
      const options = await call('POST', '/api/auth/passkeys/login/options');
      if (options.status !== 200) return show('login options', options);
      let credential;
      try {
        credential = await startAuthentication({ optionsJSON: options.body.data });
      } catch (error) {
        return show('passkey sign-in', { error: String(error && error.name), message: String(error && error.message) });
      }
      return show('passkey sign-in', signedIn(await call('POST', '/api/auth/passkeys/login/verify', { credential })));
    },
    logout: async () => {
      const answer = await call('POST', '/api/auth/logout');
      accessToken = undefined;
      return show('logout', answer);
    },
    refresh: async () => show('refresh', signedIn(await call('POST', '/api/auth/refresh'))),
  };
  window.passkeyDemo = demo;
  const value = (id) => document.getElementById(id).value;
  const on = (id, action) => document.getElementById(id).addEventListener('click', () => action().catch((error) => show('error', String(error))));
  on('register', () => demo.register(value('name'), value('email'), value('password')));
  on('signup', () => demo.signUpWithPasskey(value('name'), value('email'), value('passkey-name')));
  on('login', () => demo.login(value('email'), value('password')));
  on('add', () => demo.addPasskey(value('password'), value('passkey-name')));
  on('list', () => demo.list());
  on('passkey', () => demo.signInWithPasskey());
  on('logout', () => demo.logout());
  on('me', () => demo.me());
})();
`;
