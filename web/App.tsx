import { useState } from 'react';

/** Temporary shell: replaced by the real UI. */
export function App() {
  const [msg, setMsg] = useState('');
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const res = await fetch('/api/login', { method: 'POST', body: JSON.stringify({ username: f.get('u'), password: f.get('p') }) });
        setMsg(res.ok ? 'ok' : 'wrong credentials');
      }}
    >
      <input name="u" aria-label="Username" />
      <input name="p" type="password" aria-label="Password" />
      <button type="submit">Login</button>
      <p>{msg}</p>
    </form>
  );
}
