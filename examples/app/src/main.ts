import { createApp } from './app.js';
import { type AppConfig, ConfigError, loadConfig } from './config.js';
import { createDeps } from './deps.js';

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

function configOrExit(): AppConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const config = configOrExit();
const app = createApp(createDeps(config, log));
const server = app.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const llm = config.llm.apiKey ? `${config.llm.model} at ${config.llm.baseUrl}` : 'not configured (chat shows passages only)';
  log(`Engram reference app on http://${config.host}:${port} · owner "${config.owner}" · Engram at ${config.engram.baseUrl} · language model ${llm}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
