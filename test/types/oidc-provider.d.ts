// oidc-provider ships no types; test/helpers/oidc-issuer.ts is its only user and keeps its use small.
declare module "oidc-provider";
