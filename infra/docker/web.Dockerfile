# The SPA, built with vite and served by nginx, which forwards /api and /socket.io to the gateway.
# What the build context leaves out: infra/docker/web.Dockerfile.dockerignore.
# node:22.23.1-bookworm-slim (Node 22 LTS) and nginxinc/nginx-unprivileged:1.27-alpine, each pinned by the
# digest of that tag; change a tag and its digest together
FROM node:22.23.1-bookworm-slim@sha256:53ada149d435c38b14476cb57e4a7da73c15595aba79bd6971b547ceb6d018bf AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# every workspace's package.json, so the lockfile matches the workspaces npm sees (only web's are installed)
COPY proto/package.json proto/
COPY services/platform/package.json services/platform/
COPY services/held-request/package.json services/held-request/
COPY services/verify/package.json services/verify/
COPY services/identity/package.json services/identity/
COPY services/notification/package.json services/notification/
COPY services/ledger/package.json services/ledger/
COPY services/investment/package.json services/investment/
COPY services/withdrawal/package.json services/withdrawal/
COPY services/support/package.json services/support/
COPY services/kyc/package.json services/kyc/
COPY services/standalone/package.json services/standalone/
COPY gateway/package.json gateway/
COPY web/package.json web/
RUN npm ci --no-fund --no-audit -w @meridian/web --include-workspace-root=false
# the statement verifier the SPA bundles (meridian-verify, docs/statements.md)
COPY services/verify services/verify
# the live-push contract, one file the gateway and the SPA share (web/tsconfig.json paths: #push-contract)
COPY gateway/src/live/pushContract.ts gateway/src/live/
COPY web web
RUN cd web && npx vite build

# nginx's unprivileged build: no root, no capabilities; the pid file and every temp path are under /tmp,
# so the root filesystem may be read-only (compose: read_only + tmpfs /tmp; infra/k8s: an emptyDir on /tmp)
FROM nginxinc/nginx-unprivileged:1.27-alpine@sha256:65e3e85dbaed8ba248841d9d58a899b6197106c23cb0ff1a132b7bfe0547e4c0
COPY infra/docker/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=build /app/web/dist /usr/share/nginx/html
USER 101:101
EXPOSE 8080
