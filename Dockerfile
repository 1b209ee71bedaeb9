# taskqueue service image. Build: docker build -t taskqueue .
# Run with PostgreSQL: docker run -p 8080:8080 -e DATABASE_URL=postgres://... taskqueue
# Without DATABASE_URL it runs the embedded engine with its data in /data (a volume).
# The Node.js image: the current LTS line (override with --build-arg NODE_IMAGE=...).
ARG NODE_IMAGE=node:26-trixie-slim

# 1. Build: every dependency, then dist/ (TypeScript and the console's client bundle).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# sql/ and its generator: the build compiles the migrations and routines into dist/.
COPY sql ./sql
COPY scripts/generate-migrations.ts ./scripts/
COPY src ./src
RUN npm run build

# 2. Runtime dependencies only (no compiler, no test tools).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# 3. The image: dist/, sql/ and the runtime dependencies, run as the unprivileged `node` user.
FROM ${NODE_IMAGE}
WORKDIR /app
# The shutdown grace stays under `docker stop`'s 10 s, so in-flight requests
# finish and the pool closes before Docker sends SIGKILL. Outside a container
# the server listens on 127.0.0.1 by default; here it must take connections
# on every interface for the published port to reach it.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 TASKQUEUE_DATA_DIR=/data TASKQUEUE_SHUTDOWN_GRACE_SECONDS=8
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY sql ./sql
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
STOPSIGNAL SIGTERM
# Ready = the database answers, migrations are current, the config is loaded (GET /readyz).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
