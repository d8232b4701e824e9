// HTTPS for the gateway: the certificate and key are read at start-up and
// again whenever either file changes, so a renewed certificate (cert-manager,
// a mounted Secret) is served to new connections without a restart. A pair
// that fails to load (half written) leaves the one in force.
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { Server } from "node:https";
import type { SecureContextOptions } from "node:tls";

const pollMs = 2000;

export interface ServedTls {
  options(): SecureContextOptions;
  watch(server: Server): void;
  unwatch(): void;
}

export function serveTls(files: { cert: string; key: string }): ServedTls {
  const options = (): SecureContextOptions => ({ cert: readFileSync(files.cert), key: readFileSync(files.key) });
  const paths = [files.cert, files.key];
  return {
    options,
    watch(server) {
      const reload = () => {
        try {
          server.setSecureContext(options());
          console.log(`linkage-gateway: serving the certificate in ${files.cert} (read again)`);
        } catch (error) {
          console.error(`linkage-gateway: ${files.cert}, ${files.key}: ${(error as Error).message}; the pair read before stays in force`);
        }
      };
      for (const path of paths) watchFile(path, { interval: pollMs }, reload);
    },
    unwatch() {
      for (const path of paths) unwatchFile(path);
    },
  };
}
