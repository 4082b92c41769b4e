const m = (l) => { global.gc?.(); const u = process.memoryUsage(); console.log(l.padEnd(40), 'rss', (u.rss/1048576).toFixed(1), 'heapUsed', (u.heapUsed/1048576).toFixed(1), 'heapTotal', (u.heapTotal/1048576).toFixed(1)); };
m('bare');
const mods = process.argv.slice(2);
for (const p of mods) { const t = performance.now(); await import(p.startsWith('.') ? new URL(p, import.meta.url).href : p); m(`${p} (${(performance.now()-t).toFixed(0)} ms)`); }
