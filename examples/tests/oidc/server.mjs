// A real OAuth 2.0 authorization server for the MCP resource server tests:
// oidc-provider, a certified OpenID Provider, on 127.0.0.1.
//
//   node server.mjs RESOURCE [OPAQUE_RESOURCE]
//
// RESOURCE is the resource URI of the MCP server under test (RFC 8707):
// tokens for it are JWT access tokens (RFC 9068) signed with RS256. Tokens
// for OPAQUE_RESOURCE, if given, are opaque, for the server to introspect
// (RFC 7662) as the client `mcp-server`. No other resource gets a token.
// Two clients use the client credentials grant: `agent` (scopes notes:read
// notes:write) and `reader` (notes:read).
//
// It prints its issuer URL as the first line of its standard output.
// `POST /test/rotate` rotates the signing key without a restart: a new key
// signs from then on, the old one stays in the key set.
import http from "node:http";

import { generateKeyPair, exportJWK } from "jose";
import Provider, { errors } from "oidc-provider";

const resource = process.argv[2];
const opaqueResource = process.argv[3];
if (!resource) {
  console.error("usage: node server.mjs RESOURCE");
  process.exit(2);
}

const SCOPES = "notes:read notes:write";

async function signingKey(kid) {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
}

function provider(issuer, keys) {
  const p = new Provider(issuer, {
    clients: [
      {
        client_id: "agent",
        client_secret: "agent-secret",
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        scope: SCOPES,
      },
      {
        client_id: "mcp-server",
        client_secret: "mcp-server-secret",
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: "reader",
        client_secret: "reader-secret",
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        scope: "notes:read",
      },
    ],
    jwks: { keys },
    scopes: SCOPES.split(" "),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator) => {
          if (opaqueResource && indicator === opaqueResource) {
            return {
              scope: SCOPES,
              audience: opaqueResource,
              accessTokenTTL: 300,
              accessTokenFormat: "opaque",
            };
          }
          if (indicator !== resource) {
            throw new errors.InvalidTarget(`tokens are issued for ${resource} only`);
          }
          return {
            scope: SCOPES,
            audience: resource,
            accessTokenTTL: 300,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
  });
  p.on("server_error", (ctx, error) => console.error("server_error", error));
  return p;
}

let keys = [await signingKey("key-1")];
let generation = 1;
let handle = null;

const server = http.createServer(async (req, res) => {
  if (req.method === "POST" && req.url === "/test/rotate") {
    generation += 1;
    keys = [await signingKey(`key-${generation}`), ...keys];
    handle = provider(issuer, keys).callback();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ kid: keys[0].kid }));
    return;
  }
  handle(req, res);
});

await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
handle = provider(issuer, keys).callback();
console.log(issuer);
