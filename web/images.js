// An image from the server (captured frame, decoded upload, replay read-back)
// with its size, a fit/1:1 toggle, and the server's reason in place of a
// broken image when there is none.

import { getImage, withToken, aborted } from './api.js';
import { el, note } from './util.js';

// serverUrl: a URL with or without the token; onmissing(error, box) may put
// something else in the box (e.g. a replay read-back) when the server has no
// image.
export function imageBox(serverUrl, { caption = '', className = '', onmissing = null } = {}) {
  const box = el('figure', { class: `image-box ${className}` });
  const status = note('loading', 'loading image…');
  box.append(status);
  const controller = new AbortController();
  getImage(withToken(serverUrl), controller.signal)
    .then((objectUrl) => {
      const img = el('img', { src: objectUrl, alt: caption, class: 'fit' });
      const info = el('figcaption', {}, caption);
      img.addEventListener('load', () => {
        info.textContent = `${caption}${caption ? ' · ' : ''}${img.naturalWidth}×${img.naturalHeight}`;
        box.dataset.width = img.naturalWidth;
        box.dataset.height = img.naturalHeight;
      });
      img.addEventListener('click', () => img.classList.toggle('fit'));
      img.title = 'click: fit / actual size';
      box.replaceChildren(el('div', { class: 'checker' }, img), info);
    })
    .catch((e) => {
      if (aborted(e)) return;
      box.replaceChildren(note('error', `${caption ? caption + ': ' : ''}${e.message}`));
      if (onmissing) onmissing(e, box);
    });
  return box;
}
