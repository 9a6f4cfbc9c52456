# One image for every role; the compose file picks the role by command.
FROM node:20-bookworm
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
ENV PORT=8080
EXPOSE 8080
CMD ["npm", "start"]
