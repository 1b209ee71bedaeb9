// The console's only script, served from /console/assets/console.js (the
// Content-Security-Policy allows no inline script). Progressive: every page
// works without it; it keeps the live parts of a page fresh and says when
// they are not (live.ts), draws the charts (charts.ts), shows times in the
// chosen zone (times.ts), sorts and filters the queues (tables.ts), and
// guards the action forms (forms.ts).
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { startCharts } from './charts.js';
import { startForms } from './forms.js';
import { rememberServed, startLive } from './live.js';
import { startTables } from './tables.js';
import { startTimes } from './times.js';

function start(): void {
  rememberServed();
  startTimes();
  startTables();
  startForms();
  startCharts();
  startLive();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
