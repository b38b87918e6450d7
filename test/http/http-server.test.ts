import { connect } from 'node:net';
import { useListeningApp } from '../support/listening-app';

/** Sends raw bytes and reads everything until the server closes the connection (bounded). */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept the connection open'));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.end(bytes);
  });
}

describe('requests the HTTP parser rejects still get the fail envelope', () => {
  const listening = useListeningApp();
  const port = () => listening.port();

  it('malformed request line: 400 with the envelope, then close', async () => {
    const answer = await exchange(port(), 'NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/Connection: close/);
    expect(answer.split('\r\n\r\n')[1]).toBe('{"status":"fail","message":"Malformed HTTP request"}');
  });

  it('headers over the size limit: 431, as Node would answer, with the envelope', async () => {
    const answer = await exchange(port(), `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(JSON.parse(answer.split('\r\n\r\n')[1])).toEqual({ status: 'fail', message: 'Request headers too large' });
  });
});
