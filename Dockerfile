# orgsim server image. Build: docker build -t orgsim .   (README "Container")
#
# The build runs the README's own set-up commands (the ones .ci/run proves on a clean clone):
# `pnpm install --frozen-lockfile`, `pnpm model:fetch`, `pnpm build`. The embedding models are
# fetched at build time, so the container runs offline. The image has not been built on the
# project's machines (no Docker engine there); hadolint checks this file in `pnpm test`
# (apps/server/test/container/dockerfile.test.ts).

# Java 17 and Maven, copied into the stage that fetches the models (and nowhere else).
FROM maven:3.9-eclipse-temurin-17 AS maven

# Dependencies. The full Node image (buildpack-deps) already has python3, make and g++, which
# better-sqlite3's native addon needs when no prebuilt binary fits, and orgsim's native kernels
# (packages/native-kernel, compiled by its install step) always.
FROM node:20-bookworm AS deps
# Corepack fails its signature check on our machines: pnpm comes from npm, as in the README.
RUN npm i -g pnpm@10
# onnxruntime-node's install step downloads GPU libraries; the CPU library ships in the package.
ENV ONNXRUNTIME_NODE_INSTALL=skip
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile

# The models: Maven fetches the LangChain4j jars from Maven Central into .orgsim/models.
FROM deps AS model
ENV JAVA_HOME=/opt/java/openjdk
ENV PATH="/opt/java/openjdk/bin:/usr/share/maven/bin:${PATH}"
COPY --from=maven /opt/java/openjdk /opt/java/openjdk
COPY --from=maven /usr/share/maven /usr/share/maven
RUN pnpm model:fetch

# The bundle (apps/server/dist/orgsim.mjs), the web app (apps/web/dist: `pnpm build` builds both) and the
# server's production dependencies alone.
# `pnpm deploy --legacy`: pnpm 10 deploys without --legacy only from workspaces that inject
# their packages. onnxruntime-node ships libraries for every OS; only Linux's are kept.
FROM deps AS build
RUN pnpm build \
  && pnpm --filter @orgsim/server deploy --legacy --prod /deploy \
  && rm -rf /deploy/node_modules/.pnpm/onnxruntime-node@*/node_modules/onnxruntime-node/bin/napi-v*/darwin \
    /deploy/node_modules/.pnpm/onnxruntime-node@*/node_modules/onnxruntime-node/bin/napi-v*/win32

FROM node:20-bookworm-slim AS runtime
# Inside a container the server must listen on every interface to be reachable, and the server
# refuses to listen beyond loopback until an API key exists (README "Security"): create a key in
# the data volume (or in Elasticsearch) first, as README "Container" shows.
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  ORGSIM_DATA_DIR=/data \
  ORGSIM_MODEL_DIR=/app/models
WORKDIR /app
COPY --from=build /deploy/package.json ./package.json
COPY --from=build /deploy/node_modules ./node_modules
COPY --from=build /src/apps/server/dist ./dist
# The web app's static files, where the bundle looks for them (/app/web beside /app/dist).
COPY --from=build /src/apps/web/dist ./web
COPY --from=model /src/.orgsim/models ./models
# The code and models stay root's (read-only to the server); the data directory belongs to the
# image's own unprivileged user, node (uid and gid 1000), named by number so that a runtime can
# tell it is not root without reading /etc/passwd.
RUN mkdir /data && chown 1000:1000 /data
USER 1000:1000
VOLUME ["/data"]
EXPOSE 3000
# /ready answers 200 once the backend, the model and the sample data are ready (503 before);
# the first start embeds the sample organizations, hence the long start period. No curl here.
HEALTHCHECK --interval=15s --timeout=5s --start-period=300s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# orgsim's V8 flags, as every launcher gives them (packages/runtime/src/node-flags.ts).
ENTRYPOINT ["node", "--max-semi-space-size=64", "dist/orgsim.mjs"]
CMD ["serve"]
