import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { JobsPage } from './jobs-page.js';
import { JobPage } from './job-page.js';
import { WorkersPanel } from './workers-panel.js';
import { SignIn } from './sign-in.js';
import { signOut, useSession } from './session.js';

/** Hash routes (`#/`, `#/job/<id>`, `#/workers`): the server serves one index.html under any context path. */
function useRoute(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash.replace(/^#/, '') || '/';
}

function App() {
  const route = useRoute();
  const session = useSession();
  const job = /^\/job\/(\d+)$/.exec(route);
  const page = job ? <JobPage jobId={job[1]} key={job[1]} /> : route === '/workers' ? <WorkersPanel /> : <JobsPage />;
  return (
    <>
      <header>
        <a href="#/" class="brand">
          Tideway
        </a>
        <nav>
          <a href="#/">Jobs</a>
          <a href="#/workers">Workers</a>
        </nav>
        {session.signedIn && (
          <button class="sign-out" data-testid="sign-out" onClick={signOut}>
            sign out
          </button>
        )}
      </header>
      {/* A new generation (sign-in, sign-out) mounts the page again: it asks with the new token. */}
      <main key={session.generation}>{session.needed ? <SignIn message={session.needed} /> : page}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
