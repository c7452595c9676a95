// Starts Swagger UI on the service's own document (a file, so the pages' CSP allows no inline script).
window.ui = SwaggerUIBundle({url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null});
