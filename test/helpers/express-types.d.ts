// express comes with the MCP SDK (a dev dependency) without type declarations; the peer tests use only this of it.
declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type Request = IncomingMessage & { auth?: { clientId: string; scopes: string[] }; body?: unknown };
  export type Response = ServerResponse & { json(body: unknown): Response; status(code: number): Response; set(name: string, value: string): Response };
  export type NextFunction = (err?: unknown) => void;
  export type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;
  /** An app is also a plain request listener (`http.createServer(app)`). */
  type Listener = (req: IncomingMessage, res: ServerResponse, next?: NextFunction) => void;
  export interface Router extends RequestHandler {
    use(...handlers: unknown[]): Router;
    all(path: string, ...handlers: RequestHandler[]): Router;
    get(path: string, ...handlers: ((req: Request, res: Response, next: NextFunction) => unknown)[]): Router;
    post(path: string, ...handlers: ((req: Request, res: Response, next: NextFunction) => unknown)[]): Router;
  }
  interface Express extends Listener {
    use(...handlers: unknown[]): Express;
    post(path: string, ...handlers: RequestHandler[]): Express;
  }
  interface ExpressStatic {
    (): Express;
    Router(): Router;
    json(): RequestHandler;
  }
  const express: ExpressStatic;
  export default express;
}
