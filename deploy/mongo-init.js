/* global db */
// Run once by the mongo image when its data volume is first initialised (docker-entrypoint-initdb.d,
// as the root user): the service's own user, with the password compose gives (MONGO_PASSWORD).
// readWrite on every database: the read models (MONGO_DATABASE), the players' keys
// (MONGO_KEYS_DATABASE), and the scratch databases a verification makes (<MONGO_DATABASE>_scratch_*).
db.getSiblingDB('admin').createUser({
  user: 'gamification',
  pwd: process.env.MONGO_PASSWORD,
  roles: [{ role: 'readWriteAnyDatabase', db: 'admin' }],
});
