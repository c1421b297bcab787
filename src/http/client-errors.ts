import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';

/** How long an answered connection stays open for the client to read the answer and close. */
const LINGER_MS = 10_000;

interface Answer {
  status: number;
  code: ErrorCode;
  message: string;
}

/**
 * Requests Node's HTTP parser refuses never reach Koa: a head (request line and headers) over
 * `maxHeaderSize`, malformed HTTP, a request not received in time. Node's own answer has an empty body and
 * no request id, and it destroys the socket at once, which resets a connection whose body is still
 * arriving, so the client may see a reset instead of the answer. This answers with the error contract
 * (`{ error, code, request_id }`, `X-Request-Id`) and `Connection: close`, then keeps reading until the
 * client closes (or LINGER_MS), so the answer is what the client reads.
 */
export function answerClientErrors(server: Server, log: Logger): void {
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The parser gave up on this connection and reports again on every later chunk: answer once.
    if (answered.has(socket)) return;
    answered.add(socket);
    // Node's own guard: bytes of a response already under way must not be followed by another head.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const answer = answerFor(error.code);
    const body = JSON.stringify({ error: answer.message, code: answer.code, request_id: requestId });
    const head = [
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    socket.resume();
    const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(linger));
    log.info({ requestId, route: null, status: answer.status, refused: error.code }, 'request');
  });
}

/** The status is HTTP's own for the case; the code is the contract's nearest (README, Errors). */
function answerFor(parserCode: string | undefined): Answer {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'payload_too_large', message: `the request line and headers exceed ${maxHeaderSize} bytes; send large values in the body` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', message: 'the chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'invalid_input', message: 'the request was not received in time' };
    default:
      return { status: 400, code: 'invalid_input', message: 'the request is not valid HTTP/1.1' };
  }
}
