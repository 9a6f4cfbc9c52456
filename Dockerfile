# One image for every role; the compose file picks the role by command. Node 22 (LTS; Node 20
# reached its end of life on 2026-04-30), pinned to a release with the June 2026 security fixes
# and meeting package.json's engines (mongodb 7.9 needs 20.19 or later; every dependency takes
# 22). The install is the lock file's, exactly (npm ci), without the development tools.
FROM node:22.23.0-bookworm
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace of the TypeScript client (sdk/): the lock file names it.
COPY sdk/package.json sdk/
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# The embedded service's data directory, the service's own: a volume mounted there starts with its owner.
RUN mkdir -p /data && chown node:node /data
# Not root: the image's unprivileged user (uid 1000) owns nothing but /data; the code is read-only to it.
USER node
ENV PORT=8080
# A container's port is reached through its interfaces: the image listens on all of them (npm start: loopback only).
ENV HOST=0.0.0.0
EXPOSE 8080
# Liveness (GET /health): the process works, or needs a restart. Readiness (GET /health/ready, whether
# to send it requests) is the compose file's and the orchestrator's probe. Before it listens, a process
# catches up with the log (at most 60 minutes): the start period lets it, and nothing restarts it meanwhile.
HEALTHCHECK --interval=10s --timeout=3s --retries=3 --start-period=60m CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# node itself, not npm: the signals docker stop sends reach the service (npm start execs node too).
CMD ["node", "--import", "tsx", "app/main.ts", "all"]
