// The sessions page, kept current: each `sessions` event of /events carries the table's rows as
// JSON, and the table body is drawn again from them (text only, never markup). Without
// JavaScript the page is the same table, current as of its loading.
"use strict";

(function () {
  const body = document.querySelector("#sessions tbody");
  if (!body || !window.EventSource) {
    return;
  }
  const number = new Intl.NumberFormat("en-US");

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) {
      td.className = className;
    }
    row.appendChild(td);
    return td;
  }

  function draw(rows) {
    const drawn = document.createDocumentFragment();
    for (const session of rows) {
      const tr = document.createElement("tr");
      tr.dataset.session = session.id;
      const link = document.createElement("a");
      link.href = "/sessions/" + encodeURIComponent(session.id);
      link.textContent = session.id;
      cell(tr, "").appendChild(link);
      if (session.problem !== undefined) {
        cell(tr, "");
        cell(tr, session.state, "state");
        cell(tr, session.problem).colSpan = 4;
      } else {
        cell(tr, session.created);
        cell(tr, session.state, "state");
        cell(tr, session.model);
        cell(tr, number.format(session.input_tokens), "num");
        cell(tr, number.format(session.output_tokens), "num");
        cell(tr, session.cost, "num");
      }
      drawn.appendChild(tr);
    }
    if (!rows.length) {
      const tr = document.createElement("tr");
      tr.className = "empty";
      cell(tr, "No session is stored yet.").colSpan = 7;
      drawn.appendChild(tr);
    }
    body.replaceChildren(drawn);
  }

  const events = new EventSource("/events");
  events.addEventListener("sessions", function (event) {
    draw(JSON.parse(event.data));
  });
  events.addEventListener("open", function () {
    document.getElementById("live").hidden = false;
  });
})();
