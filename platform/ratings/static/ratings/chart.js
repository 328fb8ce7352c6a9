// The profile's rating chart: appends each point's day to its hover title (" · 01/12/2026"), in the
// page's language and the site's time zone (the svg's data-time-zone), as the server used to. The
// server sends the time as a number (data-at: seconds since 1970, UTC): formatting 500 dates there was
// a third of the page's time; the browser does it once per point, after the page is shown.
(function () {
  "use strict";
  var chart = document.querySelector('[data-testid="rating-chart"]');
  if (!chart) return;
  var lang = document.documentElement.lang || undefined;
  var format;
  try {
    format = new Intl.DateTimeFormat(lang, { dateStyle: "short", timeZone: chart.getAttribute("data-time-zone") || undefined });
  } catch (e) { // an unknown time zone or language: the browser's own
    format = new Intl.DateTimeFormat(undefined, { dateStyle: "short" });
  }
  var points = chart.querySelectorAll("circle[data-at]");
  for (var i = 0; i < points.length; i++) {
    var title = points[i].querySelector("title");
    var at = Number(points[i].getAttribute("data-at"));
    if (title && isFinite(at)) title.textContent += " · " + format.format(new Date(at * 1000));
  }
})();
