import { describe, expect, it } from 'vitest';
import { configShade, shadeJobConfigJson } from './shade.js';
import { parseJobConfig } from './parse-job-config.js';

const job = (identifier: string, password: string, user = 'postgres') => `
env {
  shade.identifier = "${identifier}"
}
source {
  Jdbc {
    url = "jdbc:postgresql://h:5432/db"
    user = "${user}"
    username = "${user}"
    password = "${password}"
  }
}
transform {
  Sql { query = "select * from t", password = "kept" }
}
sink {
  Console {}
}
`;

describe('config shades (env shade.identifier)', () => {
  it("aes256 is SeaTunnel's AES-256-CBC under its built-in key, byte for byte (vector from OpenSSL)", () => {
    // printf seatunnel_passwd | openssl enc -aes-256-cbc -K <key hex> -iv <iv hex> | base64
    expect(configShade('aes256', '').encrypt('seatunnel_passwd')).toBe('P+iEVxpiIZP4slzTAXHl8u7JO7mQNXGO5Xhp5bIwMm0=');
    expect(configShade('aes256', '').decrypt('P+iEVxpiIZP4slzTAXHl8u7JO7mQNXGO5Xhp5bIwMm0=')).toBe('seatunnel_passwd');
  });

  it('base64 and aes256 options of sources and sinks are decrypted when parsed; transforms are as written', () => {
    const b = parseJobConfig(job('base64', Buffer.from('p@ss').toString('base64'), Buffer.from('root').toString('base64')));
    expect(b.sources[0].options).toMatchObject({ password: 'p@ss', username: 'root', user: 'cm9vdA==' });
    expect(b.transforms[0].options.password).toBe('kept');
    const a = parseJobConfig(job('aes256', 'P+iEVxpiIZP4slzTAXHl8u7JO7mQNXGO5Xhp5bIwMm0=', 'P+iEVxpiIZP4slzTAXHl8u7JO7mQNXGO5Xhp5bIwMm0='));
    expect(a.sources[0].options.password).toBe('seatunnel_passwd');
  });

  it('a value that does not decrypt, or an unknown identifier, is refused naming the place', () => {
    expect(() => parseJobConfig(job('base64', 'not base64!'), { file: 'j.conf' })).toThrow(
      /^j\.conf:10, plugin Jdbc, option 'password': cannot be decrypted with shade.identifier base64/,
    );
    expect(() => parseJobConfig(job('aes256', 'cm9vdA==', 'P+iEVxpiIZP4slzTAXHl8u7JO7mQNXGO5Xhp5bIwMm0='), { file: 'j.conf' })).toThrow(
      "j.conf:10, plugin Jdbc, option 'password': cannot be decrypted with shade.identifier aes256: it is not a value encrypted by aes256 (tideway encrypt)",
    );
    expect(() => parseJobConfig(job('rot13', 'x'), { file: 'j.conf' })).toThrow(
      "j.conf:3: env shade.identifier 'rot13' is not supported: Tideway knows default, base64, aes256",
    );
  });

  it('encrypt then parse gives the values back (what tideway encrypt and /encrypt-config print)', () => {
    for (const id of ['base64', 'aes256']) {
      const encrypted = shadeJobConfigJson(parseJobConfig(job(id, 'Secret-1', 'app'), { shade: false }), 'encrypt');
      const source = (encrypted.source as Record<string, unknown>[])[0];
      expect(source.password).not.toBe('Secret-1');
      expect(source.plugin_name).toBe('Jdbc');
      const back = parseJobConfig(JSON.stringify(encrypted), { format: 'json' });
      expect(back.sources[0].options).toMatchObject({ password: 'Secret-1', user: 'app', username: 'app' });
      const decrypted = shadeJobConfigJson(parseJobConfig(JSON.stringify(encrypted), { format: 'json', shade: false }), 'decrypt');
      expect((decrypted.source as Record<string, unknown>[])[0].password).toBe('Secret-1');
    }
    expect(() => shadeJobConfigJson(parseJobConfig(job('default', 'x'), { shade: false }), 'encrypt')).toThrow(
      /env shade.identifier is missing: set it to base64 or aes256/,
    );
  });
});
