/**
 * The AWS credentials in an environment that AWS issued, for lib/redact: a secret access key (40 characters of
 * base64) and a session token (hundreds). Not a value a person chose or a stand-in's (LocalStack's `test`, a
 * MinIO password): registered, it would be masked wherever any text equals it (every project named `test`), and
 * the mask would tell whoever wrote a name that their guess of it was right.
 */
export function issuedAwsCredentials(env: NodeJS.ProcessEnv): string[] {
  const key = env["AWS_SECRET_ACCESS_KEY"];
  const token = env["AWS_SESSION_TOKEN"];
  return [...(key && /^[A-Za-z0-9/+]{40}$/.test(key) ? [key] : []), ...(token && token.length >= MIN_SESSION_TOKEN ? [token] : [])];
}

/** STS issues session tokens of some 350 characters and more (a Lambda's, about 1,000). */
const MIN_SESSION_TOKEN = 100;
