import { verifyEdsProof } from './eds-verifier';
import { TrustStore } from './trust-store';

/*
 * Proofs made by OpenSSL 3.0 rather than by our own dev-ca signer, so both sides of the CMS code
 * are checked against an independent implementation. Generated with:
 *   openssl ecparam -name prime256v1 -genkey -noout -out ca.key
 *   openssl req -x509 -new -key ca.key -subj "/C=KZ/O=Interop Test/CN=OpenSSL Interop Root" -days 36500 \
 *     -sha256 -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem
 *   openssl ecparam -name prime256v1 -genkey -noout -out leaf.key
 *   openssl req -new -key leaf.key -subj "/C=KZ/CN=Interop Signer/serialNumber=IIN770101300999" -out leaf.csr
 *   openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 36500 -sha256 \
 *     -extfile leaf.ext -out leaf.pem   # CA:FALSE, keyUsage digitalSignature+nonRepudiation, SKI, AKI
 *   printf 'interop-nonce-1' > nonce.txt
 *   openssl cms -sign -binary -nodetach -in nonce.txt -signer leaf.pem -inkey leaf.key -outform DER -md sha256
 *   openssl cms -sign -binary -in nonce.txt ... (detached);  ... -nodetach -noattr (no signed attributes)
 *   openssl dgst -sha256 -sign leaf.key nonce.txt   # raw DER ECDSA signature
 */

const NONCE = 'interop-nonce-1';
/** Inside the fixtures' validity (2026 – 2126). */
const NOW = new Date('2030-01-01T00:00:00Z');

const CA_PEM = `-----BEGIN CERTIFICATE-----
MIIB7jCCAZOgAwIBAgIUJvgV4fjgU0QAUDjXBMUkyTuH0PUwCgYIKoZIzj0EAwIw
QzELMAkGA1UEBhMCS1oxFTATBgNVBAoMDEludGVyb3AgVGVzdDEdMBsGA1UEAwwU
T3BlblNTTCBJbnRlcm9wIFJvb3QwIBcNMjYxMTIxMjMyOTI3WhgPMjEyNjEwMjgy
MzI5MjdaMEMxCzAJBgNVBAYTAktaMRUwEwYDVQQKDAxJbnRlcm9wIFRlc3QxHTAb
BgNVBAMMFE9wZW5TU0wgSW50ZXJvcCBSb290MFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEpJRJ1pj2NnET85xp37uFXFP3IkacwUiBXs7WD0eX3wns4KYmbWG9cMoc
HgQc9l3vKm4UISQLC8yI19Gu1cNpbqNjMGEwHQYDVR0OBBYEFLgFMi2MuWGTCH2W
fwHyH10EEFIDMB8GA1UdIwQYMBaAFLgFMi2MuWGTCH2WfwHyH10EEFIDMA8GA1Ud
EwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMCA0kAMEYCIQDC
ynQXMjfsKg0hIDkOGhvUpGHHa6OnzM3gIv36l6ZsfAIhAKhhF2wKFAuFQxIekGXQ
xxoGXkwGpz0I6cp7lEXhdrCM
-----END CERTIFICATE-----
`;

const LEAF_PEM = `-----BEGIN CERTIFICATE-----
MIIB5zCCAY2gAwIBAgIUQ2RHIpCr2r0WkDj4BF+DBoj97A0wCgYIKoZIzj0EAwIw
QzELMAkGA1UEBhMCS1oxFTATBgNVBAoMDEludGVyb3AgVGVzdDEdMBsGA1UEAwwU
T3BlblNTTCBJbnRlcm9wIFJvb3QwIBcNMjYxMTIxMjMyOTI3WhgPMjEyNjEwMjgy
MzI5MjdaMEAxCzAJBgNVBAYTAktaMRcwFQYDVQQDDA5JbnRlcm9wIFNpZ25lcjEY
MBYGA1UEBRMPSUlONzcwMTAxMzAwOTk5MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD
QgAEIrxVn3f0MPU7OkGShspYFKcAcGcsw1JWa4Km3kVa16wjFhQ0PoVhPIB7D5Qf
KCHrqf8RUIEux9RszbQfesbSV6NgMF4wDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8E
BAMCBsAwHQYDVR0OBBYEFM5iGA02ptSkaumyIn016N2TVn+wMB8GA1UdIwQYMBaA
FLgFMi2MuWGTCH2WfwHyH10EEFIDMAoGCCqGSM49BAMCA0gAMEUCIQDwWBp2HLfz
mSBTg8M2pmRIT3AWQPC6VgN/0ValnDRtlQIgakbtpxw3Us3H5YdSOy/L6fuzRyv7
0VUrYCGWQCS3eSI=
-----END CERTIFICATE-----
`;

const CMS_ATTACHED =
  'MIID5QYJKoZIhvcNAQcCoIID1jCCA9ICAQExDTALBglghkgBZQMEAgEwHgYJKoZIhvcNAQcBoBEED2ludGVyb3Atbm9uY2Ut' +
  'MaCCAeswggHnMIIBjaADAgECAhRDZEcikKvavRaQOPgEX4MGiP3sDTAKBggqhkjOPQQDAjBDMQswCQYDVQQGEwJLWjEVMBMG' +
  'A1UECgwMSW50ZXJvcCBUZXN0MR0wGwYDVQQDDBRPcGVuU1NMIEludGVyb3AgUm9vdDAgFw0yNjExMjEyMzI5MjdaGA8yMTI2' +
  'MTAyODIzMjkyN1owQDELMAkGA1UEBhMCS1oxFzAVBgNVBAMMDkludGVyb3AgU2lnbmVyMRgwFgYDVQQFEw9JSU43NzAxMDEz' +
  'MDA5OTkwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQivFWfd/Qw9Ts6QZKGylgUpwBwZyzDUlZrgqbeRVrXrCMWFDQ+hWE8' +
  'gHsPlB8oIeup/xFQgS7H1GzNtB96xtJXo2AwXjAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIGwDAdBgNVHQ4EFgQUzmIY' +
  'DTam1KRq6bIifTXo3ZNWf7AwHwYDVR0jBBgwFoAUuAUyLYy5YZMIfZZ/AfIfXQQQUgMwCgYIKoZIzj0EAwIDSAAwRQIhAPBY' +
  'GnYct/OZIFODwzamZEhPcBZA8LpWA3/RVqWcNG2VAiBqRu2nHDdSzcflh1I7L8vp+7NHK/vRVStgIZZAJLd5IjGCAa0wggGp' +
  'AgEBMFswQzELMAkGA1UEBhMCS1oxFTATBgNVBAoMDEludGVyb3AgVGVzdDEdMBsGA1UEAwwUT3BlblNTTCBJbnRlcm9wIFJv' +
  'b3QCFENkRyKQq9q9FpA4+ARfgwaI/ewNMAsGCWCGSAFlAwQCAaCB5DAYBgkqhkiG9w0BCQMxCwYJKoZIhvcNAQcBMBwGCSqG' +
  'SIb3DQEJBTEPFw0yNjExMjEyMzI5MjdaMC8GCSqGSIb3DQEJBDEiBCDV4yczbhWwtko3WnrIG21emTHdU2FdGaY4LAR2LKMj' +
  'GjB5BgkqhkiG9w0BCQ8xbDBqMAsGCWCGSAFlAwQBKjALBglghkgBZQMEARYwCwYJYIZIAWUDBAECMAoGCCqGSIb3DQMHMA4G' +
  'CCqGSIb3DQMCAgIAgDANBggqhkiG9w0DAgIBQDAHBgUrDgMCBzANBggqhkiG9w0DAgIBKDAKBggqhkjOPQQDAgRHMEUCIQDH' +
  'dL1QDhjQuH+yFz3sec4PLP8OKHkYPFkEDccMlDwqnQIgA0g3DGj5PG6Ye86TQgqPMATgdzoBGk62AXxjDbg4Dj0=';

const CMS_DETACHED =
  'MIID0QYJKoZIhvcNAQcCoIIDwjCCA74CAQExDTALBglghkgBZQMEAgEwCwYJKoZIhvcNAQcBoIIB6zCCAecwggGNoAMCAQIC' +
  'FENkRyKQq9q9FpA4+ARfgwaI/ewNMAoGCCqGSM49BAMCMEMxCzAJBgNVBAYTAktaMRUwEwYDVQQKDAxJbnRlcm9wIFRlc3Qx' +
  'HTAbBgNVBAMMFE9wZW5TU0wgSW50ZXJvcCBSb290MCAXDTI2MTEyMTIzMjkyN1oYDzIxMjYxMDI4MjMyOTI3WjBAMQswCQYD' +
  'VQQGEwJLWjEXMBUGA1UEAwwOSW50ZXJvcCBTaWduZXIxGDAWBgNVBAUTD0lJTjc3MDEwMTMwMDk5OTBZMBMGByqGSM49AgEG' +
  'CCqGSM49AwEHA0IABCK8VZ939DD1OzpBkobKWBSnAHBnLMNSVmuCpt5FWtesIxYUND6FYTyAew+UHygh66n/EVCBLsfUbM20' +
  'H3rG0lejYDBeMAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/BAQDAgbAMB0GA1UdDgQWBBTOYhgNNqbUpGrpsiJ9Nejdk1Z/sDAf' +
  'BgNVHSMEGDAWgBS4BTItjLlhkwh9ln8B8h9dBBBSAzAKBggqhkjOPQQDAgNIADBFAiEA8Fgadhy385kgU4PDNqZkSE9wFkDw' +
  'ulYDf9FWpZw0bZUCIGpG7accN1LNx+WHUjsvy+n7s0cr+9FVK2AhlkAkt3kiMYIBrDCCAagCAQEwWzBDMQswCQYDVQQGEwJL' +
  'WjEVMBMGA1UECgwMSW50ZXJvcCBUZXN0MR0wGwYDVQQDDBRPcGVuU1NMIEludGVyb3AgUm9vdAIUQ2RHIpCr2r0WkDj4BF+D' +
  'Boj97A0wCwYJYIZIAWUDBAIBoIHkMBgGCSqGSIb3DQEJAzELBgkqhkiG9w0BBwEwHAYJKoZIhvcNAQkFMQ8XDTI2MTEyMTIz' +
  'MjkyN1owLwYJKoZIhvcNAQkEMSIEINXjJzNuFbC2SjdaesgbbV6ZMd1TYV0ZpjgsBHYsoyMaMHkGCSqGSIb3DQEJDzFsMGow' +
  'CwYJYIZIAWUDBAEqMAsGCWCGSAFlAwQBFjALBglghkgBZQMEAQIwCgYIKoZIhvcNAwcwDgYIKoZIhvcNAwICAgCAMA0GCCqG' +
  'SIb3DQMCAgFAMAcGBSsOAwIHMA0GCCqGSIb3DQMCAgEoMAoGCCqGSM49BAMCBEYwRAIgMZvfeIFUJ35QvmFEL6g2t23Il4DH' +
  'SWhm8rZ2BwHzsqUCIBftjs81M0y1UmZxacioG6BIDgkYqzJ0pnR9H4M0+OZw';

const CMS_NO_SIGNED_ATTRIBUTES =
  'MIIC/AYJKoZIhvcNAQcCoIIC7TCCAukCAQExDTALBglghkgBZQMEAgEwHgYJKoZIhvcNAQcBoBEED2ludGVyb3Atbm9uY2Ut' +
  'MaCCAeswggHnMIIBjaADAgECAhRDZEcikKvavRaQOPgEX4MGiP3sDTAKBggqhkjOPQQDAjBDMQswCQYDVQQGEwJLWjEVMBMG' +
  'A1UECgwMSW50ZXJvcCBUZXN0MR0wGwYDVQQDDBRPcGVuU1NMIEludGVyb3AgUm9vdDAgFw0yNjExMjEyMzI5MjdaGA8yMTI2' +
  'MTAyODIzMjkyN1owQDELMAkGA1UEBhMCS1oxFzAVBgNVBAMMDkludGVyb3AgU2lnbmVyMRgwFgYDVQQFEw9JSU43NzAxMDEz' +
  'MDA5OTkwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQivFWfd/Qw9Ts6QZKGylgUpwBwZyzDUlZrgqbeRVrXrCMWFDQ+hWE8' +
  'gHsPlB8oIeup/xFQgS7H1GzNtB96xtJXo2AwXjAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIGwDAdBgNVHQ4EFgQUzmIY' +
  'DTam1KRq6bIifTXo3ZNWf7AwHwYDVR0jBBgwFoAUuAUyLYy5YZMIfZZ/AfIfXQQQUgMwCgYIKoZIzj0EAwIDSAAwRQIhAPBY' +
  'GnYct/OZIFODwzamZEhPcBZA8LpWA3/RVqWcNG2VAiBqRu2nHDdSzcflh1I7L8vp+7NHK/vRVStgIZZAJLd5IjGBxTCBwgIB' +
  'ATBbMEMxCzAJBgNVBAYTAktaMRUwEwYDVQQKDAxJbnRlcm9wIFRlc3QxHTAbBgNVBAMMFE9wZW5TU0wgSW50ZXJvcCBSb290' +
  'AhRDZEcikKvavRaQOPgEX4MGiP3sDTALBglghkgBZQMEAgEwCgYIKoZIzj0EAwIERzBFAiEArTAMog4u2z0XbgLInYCe+TGE' +
  '8yQSe+TCXxKCeMNLYuECIFpfunVS+TBmDltqkB52qkiiJcLDkEQ3cE8XCy/0da17';

const RAW_SIGNATURE =
  'MEUCIFw3BUCzQig8x4ndSJMp3vN+ogeK9dU1ZjZwueE2Cvf4AiEAuDcq5wVo0pRC/2xjO22OGbHBYgLD9vc8A2h7UQUuiY4=';

describe('OpenSSL-made proofs', () => {
  const trust = TrustStore.fromPem(CA_PEM);
  const expected = { identityKey: 'sn:IIN770101300999', commonName: 'Interop Signer' };

  it.each([
    ['attached, with signingTime and smimeCapabilities attributes', CMS_ATTACHED],
    ['detached', CMS_DETACHED],
    ['without signed attributes', CMS_NO_SIGNED_ATTRIBUTES],
  ])('accepts CMS %s', async (_label, cms) => {
    await expect(verifyEdsProof({ cms }, NONCE, trust, NOW)).resolves.toMatchObject(expected);
  });

  it('accepts a raw signature', async () => {
    const proof = { certificate: LEAF_PEM, signature: RAW_SIGNATURE };
    await expect(verifyEdsProof(proof, NONCE, trust, NOW)).resolves.toMatchObject(expected);
  });

  it('refuses them for another nonce', async () => {
    for (const cms of [CMS_DETACHED, CMS_NO_SIGNED_ATTRIBUTES]) {
      await expect(verifyEdsProof({ cms }, 'interop-nonce-2', trust, NOW)).rejects.toThrow(
        /signature does not verify|CMS content does not match the challenge/,
      );
    }
    const proof = { certificate: LEAF_PEM, signature: RAW_SIGNATURE };
    await expect(verifyEdsProof(proof, 'interop-nonce-2', trust, NOW)).rejects.toThrow('signature does not verify');
  });
});
