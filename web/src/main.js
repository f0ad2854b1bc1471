// Placeholder entry point so the bundle builds (web/CMakeLists.txt expects src/main.js
// that imports the stylesheet). The dashboard itself is written in the h-report branch,
// which replaces this file.
import './app.css';

const app = document.getElementById('app');
if (app) app.textContent = 'kraken dashboard: see /api/v1/openapi.json for the API.';
