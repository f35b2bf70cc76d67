"""The CSS and JavaScript inlined in every HTML report (allowed by hash in its CSP)."""

CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{padding:14px 22px 8px;background:#fff;border-bottom:1px solid #dde1e6}
h1{font-size:22px;margin:0 0 6px}h1 small{font-weight:400;color:#667;font-size:15px;margin-left:6px}
h2{font-size:16px;margin:14px 0 8px}h3{font-size:14px;margin:0 0 4px}
.verdict{color:#fff;padding:2px 10px;border-radius:4px;font-size:15px;vertical-align:2px}
.v-broken{background:#c62828}.v-suspect{background:#d18b00}.v-healthy{background:#2e7d32}
.facts{display:flex;flex-wrap:wrap;gap:4px 16px;color:#445;font-size:13px}
main{display:grid;grid-template-columns:minmax(0,940px) minmax(300px,1fr);grid-template-rows:auto 1fr;
grid-template-areas:'plots side' 'below side';gap:0 18px;padding:14px 22px;align-items:start}
.plots{grid-area:plots}aside{grid-area:side}.below{grid-area:below}
@media (max-width:1100px){main{grid-template-columns:1fr;grid-template-areas:'plots' 'side' 'below'}}
.panel{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin-bottom:8px;padding:4px 6px 2px}
.panel.empty{padding:6px}.na{color:#889;font-size:12px;margin-left:8px}
.ph{display:flex;align-items:center;gap:12px;font-size:13px;min-height:22px}
.pt{font-weight:600}.readout{margin-left:auto;color:#333;font-variant-numeric:tabular-nums;white-space:nowrap;overflow:hidden}
.key{display:inline-flex;align-items:center;gap:4px;color:#444}svg.sw{display:inline-block;width:18px;height:6px}
.panel.logscale g.lin,.panel:not(.logscale) g.log{display:none}
.logt{color:#555;cursor:pointer;white-space:nowrap}
svg{display:block;width:100%;height:auto;overflow:visible}
.bg{fill:#fcfcfd;stroke:#d5d9de}.grid{stroke:#eceef1;stroke-width:1}
.tick{font-size:11px;fill:#667}.xlabel{text-align:center;color:#667;font-size:12px}
.series{fill:none;stroke-width:1.7;stroke-linejoin:round}
.ref{stroke-width:1.6;stroke-dasharray:7 4}.reflabel{font-size:12px;font-weight:600}
.vlabel{font-size:11.5px;font-weight:600}
.nonfinite{fill:#d62728}
.band{opacity:0}.band.on{opacity:.14}.onset{stroke-width:1;stroke-dasharray:2 3;opacity:.55}
.parting{stroke-width:1.6;stroke-dasharray:5 3}.parting.on{stroke-width:3.5}
.xhair{stroke:#333;stroke-width:.8;opacity:0;pointer-events:none}
.lane-bar{opacity:.22}.lane-text{font-size:12px;fill:#1b1f24;font-weight:600}
.finding-mark{cursor:default}.finding-mark.on .lane-bar{opacity:.45}
aside h2:first-child{margin-top:0}
aside .card{background:#fff;border:1px solid #dde1e6;border-left:5px solid #999;border-radius:6px;padding:8px 10px;margin-bottom:8px}
.card.sev-error{border-left-color:#d62728}.card.sev-warning{border-left-color:#d18b00}.card.sev-info{border-left-color:#1f8fc8}
.card.on{box-shadow:0 0 0 2px #9ab}
.card .n{display:inline-block;min-width:18px;text-align:center;background:#333;color:#fff;border-radius:9px;font-size:12px;margin-right:6px}
.card .sev{font-size:11px;color:#666;margin-right:4px}.card p{margin:4px 0}.meta{color:#667;font-size:12px}
.do{color:#1b5e20}
.live{color:#8a5a00}
table{border-collapse:collapse;font-size:12.5px}.kv th{text-align:left;padding:1px 10px 1px 0;color:#445;font-weight:500;vertical-align:top}
.kv td{padding:1px 0;word-break:break-word}.kv td.src{color:#889;padding-left:14px}
.config-diff td{padding:1px 12px 1px 0;color:#889}.config-diff tr.differs td{color:#111;font-weight:600}
table.grid td,table.grid th{border-bottom:1px solid #eceef1;padding:2px 10px;text-align:right}
table.grid td:first-child,table.grid th:first-child,table.grid td.name{text-align:left}
tr.bad td{background:#fde7e7;color:#b71c1c;font-weight:600}
section{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin:0 0 10px;padding:4px 14px 10px;overflow-x:auto}
.err{color:#b71c1c;background:#fde7e7;padding:8px 22px}.note,.notes{color:#556;font-size:12.5px}
.ok{color:#2e7d32}footer{color:#889;font-size:12px;padding:6px 22px 20px}
"""

SCRIPT = """
(function(){
var err=document.getElementById('js-error');
function fail(e){err.hidden=false;err.textContent='report script error: '+e;document.body.dataset.ok='0';}
window.addEventListener('error',function(e){fail(e.message);});
try{
var D=JSON.parse(document.getElementById('td-data').textContent);
function fmt(v){var a=Math.abs(v);if(v!==0&&(a<1e-3||a>=1e5))return v.toExponential(2);return String(+v.toPrecision(4));}
function near(xs,s){var lo=0,hi=xs.length-1;if(hi<0)return -1;while(lo<hi){var m=(lo+hi)>>1;if(xs[m]<s)lo=m+1;else hi=m;}
if(lo>0&&Math.abs(xs[lo-1]-s)<=Math.abs(xs[lo]-s))lo--;return lo;}
var panels=[].slice.call(document.querySelectorAll('.panel[data-panel]'));
function show(step){var vx=D.l+(step-D.x0)/(D.x1-D.x0)*D.pw;
panels.forEach(function(p){var h=p.querySelector('.xhair');if(h){h.setAttribute('x1',vx);h.setAttribute('x2',vx);h.style.opacity=step===null?0:1;}
var r=p.querySelector('.readout'),S=D.panels[p.dataset.panel];if(!r||!S)return;
if(step===null){r.textContent='';return;}
var parts=[];S.forEach(function(s){var i=near(s.x,step);if(i<0)return;var t=s.label+' '+fmt(s.v[i]);
if(s.lo[i]!==s.hi[i])t+=' ['+fmt(s.lo[i])+'..'+fmt(s.hi[i])+']';parts.push(t);});
r.textContent='step '+Math.round(step)+' \\u00b7 '+parts.join(' \\u00b7 ');});}
panels.forEach(function(p){var svg=p.querySelector('svg.plot');if(!svg)return;
svg.addEventListener('mousemove',function(e){var b=svg.getBoundingClientRect();var vx=(e.clientX-b.left)/b.width*D.w;
var s=D.x0+(vx-D.l)/D.pw*(D.x1-D.x0);show(Math.max(D.x0,Math.min(D.x1,s)));});
svg.addEventListener('mouseleave',function(){show(null);});});
[].forEach.call(document.querySelectorAll('.logt input'),function(c){c.addEventListener('change',function(){
var p=c.closest('.panel');p.classList.toggle('logscale',c.checked);});});
function hl(k,on){[].forEach.call(document.querySelectorAll('.'+k+',[data-f="'+k+'"]'),function(e){e.classList.toggle('on',on);});}
[].forEach.call(document.querySelectorAll('[data-f]'),function(e){var k=e.dataset.f;
e.addEventListener('mouseenter',function(){hl(k,true);});e.addEventListener('mouseleave',function(){hl(k,false);});});
document.body.dataset.ok='1';
if(location.hash==='#selftest'){show((D.x0+D.x1)/2);var r=document.querySelector('.readout');
document.body.dataset.readout=r?r.textContent:'';var c=document.querySelector('.logt input:not([disabled])');
if(c)c.click();document.body.dataset.selftest=c&&c.closest('.panel').classList.contains('logscale')===c.checked?'1':'0';}
}catch(e){fail(e);}
})();
"""
