import { useState } from 'preact/hooks';
import { signIn } from './session.js';

/** The form shown when the REST API answers 401: a bearer token (tideway token create) for this tab. */
export function SignIn({ message }: { message: string }) {
  const [token, setToken] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    if (token.trim()) signIn(token);
  };
  return (
    <section class="sign-in">
      <h1>Sign in</h1>
      <p class="error" data-testid="sign-in-reason">
        {message}
      </p>
      <form data-testid="sign-in" onSubmit={submit}>
        <label>
          bearer token{' '}
          <input
            type="password"
            name="token"
            autocomplete="off"
            placeholder="tw_…"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </label>{' '}
        <button type="submit">sign in</button>
      </form>
      <p class="small">
        The token is kept in this tab only (sessionStorage) and sent with every call to the REST API. An admin makes one with{' '}
        <code>tideway token create</code>.
      </p>
    </section>
  );
}
