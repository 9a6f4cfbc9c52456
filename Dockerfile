# One image for every role; the compose file picks the role by command. Node pinned to a release
# that meets package.json's engines (mongodb 7.9 needs 20.19 or later); the install is the lock
# file's, exactly (npm ci), without the development tools.
FROM node:20.20.2-bookworm
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace of the TypeScript client (sdk/): the lock file names it.
COPY sdk/package.json sdk/
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV PORT=8080
# A container's port is reached through its interfaces: the image listens on all of them (npm start: loopback only).
ENV HOST=0.0.0.0
EXPOSE 8080
# Ready for writes (GET /health/ready; liveness alone is GET /health): docs/operations.md, "Operating it".
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# node itself, not npm: the signals docker stop sends reach the service (npm start execs node too).
CMD ["node", "--import", "tsx", "app/main.ts", "all"]
