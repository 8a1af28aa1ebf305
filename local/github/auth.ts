import { randomBytes, verify } from 'node:crypto';
import { GitHubApiError } from './errors.ts';

/** The GitHub App the emulator plays: `@octokit/auth-app` signs its JWTs as this app. */
export interface AppSettings {
  /** @default 1 */
  appId: number;
  /** @default 'slack-agents-sandbox' */
  slug: string;
  /** The one installation, on every repository of the emulator. @default 1 */
  installationId: number;
  /**
   * The App's public key (PEM). Given, every JWT's RS256 signature is checked with it; absent,
   * any well-formed, unexpired JWT whose `iss` is the app id is accepted (the sandbox then has no
   * key pair to check against, and the token's claims are still held to GitHub's rules).
   */
  publicKeyPem?: string;
}

/** Who is calling: nobody, the App itself (JWT), an installation (its token) or a user (their token). */
export type Actor =
  | { kind: 'anonymous' }
  | { kind: 'app' }
  | { kind: 'installation'; login: string }
  | { kind: 'user'; login: string };

const BAD_CREDENTIALS = 'Bad credentials';
/** An installation token's lifetime on GitHub. */
const TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export class Auth {
  private readonly installationTokens = new Map<string, number>();

  constructor(
    readonly app: AppSettings,
    /** Personal tokens of the sandbox's users: token -> login. */
    private readonly userTokens: ReadonlyMap<string, string>,
    private readonly now: () => Date,
  ) {}

  get botLogin(): string {
    return `${this.app.slug}[bot]`;
  }

  /** The caller of a request, from its `Authorization` header (`token X`, `bearer X`). */
  identify(header: string | undefined): Actor {
    if (!header) return { kind: 'anonymous' };
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header.trim());
    if (!match?.[1]) throw new GitHubApiError(401, BAD_CREDENTIALS);
    const credential = match[1];
    if (credential.split('.').length === 3) {
      this.verifyJwt(credential);
      return { kind: 'app' };
    }
    const expires = this.installationTokens.get(credential);
    if (expires !== undefined) {
      if (expires <= this.now().getTime()) throw new GitHubApiError(401, BAD_CREDENTIALS);
      return { kind: 'installation', login: this.botLogin };
    }
    const login = this.userTokens.get(credential);
    if (login) return { kind: 'user', login };
    throw new GitHubApiError(401, BAD_CREDENTIALS);
  }

  mintInstallationToken(): { token: string; expiresAt: string } {
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    const expires = this.now().getTime() + TOKEN_LIFETIME_MS;
    this.installationTokens.set(token, expires);
    return { token, expiresAt: new Date(expires).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  /** GitHub's checks of an App JWT: RS256, `iss` the app id, `iat` not in the future, `exp` within 10 minutes. */
  private verifyJwt(jwt: string): void {
    const [headerPart = '', payloadPart = '', signaturePart = ''] = jwt.split('.');
    let header: { alg?: unknown };
    let payload: { iss?: unknown; iat?: unknown; exp?: unknown };
    try {
      header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8'));
      payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
    } catch (error) {
      throw new GitHubApiError(401, 'A JSON web token could not be decoded', { cause: error });
    }
    if (header.alg !== 'RS256') throw new GitHubApiError(401, 'A JSON web token could not be decoded');
    if (this.app.publicKeyPem) {
      const ok = verify(
        'RSA-SHA256',
        Buffer.from(`${headerPart}.${payloadPart}`),
        this.app.publicKeyPem,
        Buffer.from(signaturePart, 'base64url'),
      );
      if (!ok) throw new GitHubApiError(401, 'A JSON web token could not be decoded');
    }
    if (String(payload.iss) !== String(this.app.appId))
      throw new GitHubApiError(401, 'Integration not found');
    const now = Math.floor(this.now().getTime() / 1000);
    if (typeof payload.iat !== 'number' || payload.iat > now + 60) {
      throw new GitHubApiError(
        401,
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued.",
      );
    }
    if (typeof payload.exp !== 'number' || payload.exp <= now) {
      throw new GitHubApiError(
        401,
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires.",
      );
    }
    if (payload.exp > now + 600 + 60) {
      throw new GitHubApiError(401, "'Expiration time' claim ('exp') is too far in the future.");
    }
  }
}
