# The SPA, built with vite and served by nginx, which forwards /api and /socket.io to the gateway.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY web/package.json web/
RUN npm ci --no-fund --no-audit -w @meridian/web --include-workspace-root=false
COPY web web
RUN cd web && npx vite build

FROM nginx:1.27-alpine
COPY infra/docker/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=build /app/web/dist /usr/share/nginx/html
EXPOSE 8080
