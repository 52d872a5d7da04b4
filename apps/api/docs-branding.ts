/**
 * Sello's own look for the API reference at `/docs` (@fastify/swagger-ui options): page title, logo,
 * favicon and top-bar colour, and the document it loads named by the README's URL, `/openapi.json`
 * (Swagger UI's `urls` list is what its top bar shows; issue 30, item 7). The images are the files in
 * ./assets (a seal mark drawn for Sello; the PNG favicon is the mark rendered at 32 px).
 */
import { readFileSync } from 'node:fs';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const asset = (name: string): Buffer => readFileSync(new URL(`./assets/${name}`, import.meta.url));

/** The OpenAPI document's public URL, as the README names it. */
export const OPENAPI_URL = '/openapi.json';

/** Sello's green, the seal's colour. */
const SELLO_GREEN = '#0b6e4f';

const THEME_CSS = `.swagger-ui .topbar{background-color:#10241d;border-bottom:4px solid ${SELLO_GREEN}}
.swagger-ui .topbar .download-url-wrapper .select-label{color:#ffffff}
.swagger-ui .topbar .download-url-wrapper .select-label select{border-color:${SELLO_GREEN}}
.swagger-ui .topbar-wrapper img{height:40px}`;

/** Options spread into the `@fastify/swagger-ui` registration. */
export const SWAGGER_UI_BRANDING: FastifySwaggerUiOptions = {
  uiConfig: {
    deepLinking: true,
    // Generated clients name their methods after the operation ids: show them.
    displayOperationId: true,
    urls: [{ url: OPENAPI_URL, name: `Sello API (${OPENAPI_URL})` }],
  },
  logo: { type: 'image/svg+xml', content: asset('sello-logo.svg'), href: '/docs', target: '_self' },
  theme: {
    title: 'Sello API reference',
    css: [{ filename: 'sello.css', content: THEME_CSS }],
    favicon: [
      { filename: 'sello-favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: asset('sello-mark.svg') },
      { filename: 'sello-favicon-32.png', rel: 'icon', sizes: '32x32', type: 'image/png', content: asset('sello-favicon-32.png') },
    ],
  },
};
