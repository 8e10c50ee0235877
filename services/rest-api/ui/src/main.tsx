import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { JobsPage } from './jobs-page.js';
import { JobPage } from './job-page.js';
import { WorkersPanel } from './workers-panel.js';

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
  const job = /^\/job\/(\d+)$/.exec(route);
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
      </header>
      <main>{job ? <JobPage jobId={job[1]} key={job[1]} /> : route === '/workers' ? <WorkersPanel /> : <JobsPage />}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
