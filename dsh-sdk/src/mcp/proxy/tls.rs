//! HTTPS to a proxied server: reqwest's rustls (no system OpenSSL), with the
//! system's trust store and the roots a host adds (a private CA, a test
//! certificate).

/// The roots a proxy trusts for `https://` servers.
#[derive(Clone, Debug, Default)]
pub(super) struct TlsRoots {
    /// PEM texts, parsed when the proxy connects.
    pem: Vec<Vec<u8>>,
    /// DER certificates.
    der: Vec<Vec<u8>>,
    /// Whether the system's trust store is left out.
    only_these: bool,
}

/// Why the HTTPS set-up of a proxy failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A root certificate could not be read.
    #[error("a root certificate cannot be read: {0}")]
    Certificate(#[source] reqwest::Error),
    /// A PEM text held no certificate.
    #[error("a PEM text given as root certificates holds no certificate")]
    NoCertificate,
    /// Only the given roots are to be trusted, and none was given.
    #[error("only the given root certificates are to be trusted, and none was given")]
    NoRoots,
    /// The HTTP client could not be built with these roots.
    #[error("the HTTPS client cannot be built: {0}")]
    Client(#[source] reqwest::Error),
}

impl TlsRoots {
    pub(super) fn add_pem(&mut self, pem: Vec<u8>) {
        self.pem.push(pem);
    }

    pub(super) fn add_der(&mut self, der: Vec<u8>) {
        self.der.push(der);
    }

    pub(super) fn only_these(&mut self) {
        self.only_these = true;
    }

    /// Every root given, parsed.
    fn certificates(&self) -> Result<Vec<reqwest::Certificate>, TlsError> {
        let mut certificates = Vec::new();
        for der in &self.der {
            certificates.push(reqwest::Certificate::from_der(der).map_err(TlsError::Certificate)?);
        }
        for pem in &self.pem {
            let bundle =
                reqwest::Certificate::from_pem_bundle(pem).map_err(TlsError::Certificate)?;
            if bundle.is_empty() {
                return Err(TlsError::NoCertificate);
            }
            certificates.extend(bundle);
        }
        Ok(certificates)
    }

    /// An HTTP client that speaks HTTPS trusting the system's roots (unless
    /// left out) and the given ones.
    pub(super) fn http_client(&self) -> Result<reqwest::Client, TlsError> {
        let certificates = self.certificates()?;
        // A request is several small writes: with Nagle's algorithm the
        // last would wait for the server's delayed ACK (reqwest's default,
        // said here so it stays so).
        let builder = reqwest::Client::builder().tcp_nodelay(true);
        let builder = if self.only_these {
            if certificates.is_empty() {
                return Err(TlsError::NoRoots);
            }
            builder.tls_certs_only(certificates)
        } else {
            builder.tls_certs_merge(certificates)
        };
        builder.build().map_err(TlsError::Client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_a_certificate_is_refused() {
        let mut roots = TlsRoots::default();
        roots.add_pem(b"not a certificate".to_vec());
        assert!(matches!(roots.http_client(), Err(TlsError::NoCertificate)));
    }

    #[test]
    fn trusting_only_given_roots_needs_a_root() {
        let mut roots = TlsRoots::default();
        roots.only_these();
        assert!(matches!(roots.http_client(), Err(TlsError::NoRoots)));
    }

    #[test]
    fn a_broken_pem_block_is_refused() {
        let mut roots = TlsRoots::default();
        roots.add_pem(b"-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".to_vec());
        assert!(roots.http_client().is_err());
    }

    #[test]
    fn no_roots_given_is_the_system_s_trust_store() {
        assert!(TlsRoots::default().http_client().is_ok());
    }
}
