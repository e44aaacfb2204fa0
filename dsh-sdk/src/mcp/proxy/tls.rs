//! HTTPS to a proxied server: rustls on ring, with the system's trust store
//! and the roots a host adds (a private CA, a test certificate).

use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// The roots a proxy trusts for `https://` servers.
#[derive(Clone, Debug, Default)]
pub(super) struct TlsRoots {
    /// PEM files' contents, parsed when the proxy connects.
    pem: Vec<Vec<u8>>,
    /// DER certificates.
    der: Vec<CertificateDer<'static>>,
    /// Whether the system's trust store is left out.
    only_these: bool,
}

/// Why the TLS set-up of an `https://` proxy failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A PEM root certificate could not be read.
    #[error("a root certificate is not valid PEM: {0}")]
    Pem(#[from] rustls::pki_types::pem::Error),
    /// A PEM text held no certificate.
    #[error("a PEM text given as root certificates holds no certificate")]
    NoCertificate,
    /// A root was refused, or no root is left to trust.
    #[error("the root certificates cannot be used: {0}")]
    Roots(#[from] rustls::Error),
    /// The HTTP client could not be built.
    #[error("the HTTPS client cannot be built: {0}")]
    Client(#[source] reqwest::Error),
}

impl TlsRoots {
    pub(super) fn add_pem(&mut self, pem: Vec<u8>) {
        self.pem.push(pem);
    }

    pub(super) fn add_der(&mut self, der: Vec<u8>) {
        self.der.push(CertificateDer::from(der));
    }

    pub(super) fn only_these(&mut self) {
        self.only_these = true;
    }

    /// Every root given, parsed.
    fn certificates(&self) -> Result<Vec<CertificateDer<'static>>, TlsError> {
        let mut certificates = self.der.clone();
        for pem in &self.pem {
            let before = certificates.len();
            for certificate in CertificateDer::pem_slice_iter(pem) {
                certificates.push(certificate?);
            }
            if certificates.len() == before {
                return Err(TlsError::NoCertificate);
            }
        }
        Ok(certificates)
    }

    /// The rustls configuration: ring's provider, TLS 1.2 and 1.3, the
    /// system's roots (unless left out) plus the given ones.
    pub(super) fn client_config(&self) -> Result<rustls::ClientConfig, TlsError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()?;
        let certificates = self.certificates()?;
        let config = if self.only_these {
            let mut roots = rustls::RootCertStore::empty();
            for certificate in certificates {
                roots.add(certificate)?;
            }
            if roots.is_empty() {
                return Err(TlsError::NoCertificate);
            }
            builder.with_root_certificates(roots)
        } else {
            let verifier =
                rustls_platform_verifier::Verifier::new_with_extra_roots(certificates, provider)?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
        };
        Ok(config.with_no_client_auth())
    }

    /// An HTTP client that speaks HTTPS with [`client_config`](Self::client_config).
    pub(super) fn http_client(&self) -> Result<reqwest::Client, TlsError> {
        reqwest::Client::builder()
            .tls_backend_preconfigured(self.client_config()?)
            .build()
            .map_err(TlsError::Client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_a_certificate_is_refused() {
        let mut roots = TlsRoots::default();
        roots.add_pem(b"not a certificate".to_vec());
        assert!(matches!(
            roots.client_config(),
            Err(TlsError::NoCertificate)
        ));
    }

    #[test]
    fn trusting_only_given_roots_needs_a_root() {
        let mut roots = TlsRoots::default();
        roots.only_these();
        assert!(matches!(
            roots.client_config(),
            Err(TlsError::NoCertificate)
        ));
    }

    #[test]
    fn a_broken_pem_block_is_refused() {
        let mut roots = TlsRoots::default();
        roots.add_pem(b"-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".to_vec());
        assert!(matches!(roots.client_config(), Err(TlsError::Pem(_))));
    }
}
