// Starts Swagger UI on the service's own OpenAPI document. A file of its own, not an inline
// script: the Content-Security-Policy allows same-origin script files only.
/* global SwaggerUIBundle -- defined by swagger-ui-bundle.js, loaded before this file */
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // "Try it out" open on every operation, for a reference read with a key at hand.
    tryItOutEnabled: true,
    displayRequestDuration: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
