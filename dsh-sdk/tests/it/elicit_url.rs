//! URL-mode elicitation from a tool's side, against clients of the host's
//! own: what the client is asked, what the tool gets back, and the typed
//! refusals (a URL no user may be sent to, a client that cannot, no client).

use std::sync::{Arc, Mutex};

use dsh_kit::Exec;
use dsh_kit::client::{
    Client, ClientError, ElicitRequest, Elicitation, ElicitationId, Elicited, LogMessage, Sample,
    SampleRequest, URL_ELICITATION, UrlElicitError, UrlElicitRequest, UrlProblem,
};
use futures_util::future::BoxFuture;

/// A client that agrees to every URL and keeps what it was told.
#[derive(Default)]
struct Browser {
    asked: Mutex<Vec<UrlElicitRequest>>,
    completed: Mutex<Vec<ElicitationId>>,
}

/// A client of before URL elicitation: only the required methods.
struct FormsOnly;

fn refused<T: Send + 'static>() -> BoxFuture<'static, Result<T, ClientError>> {
    Box::pin(async { Err(ClientError::Failed("not in this test".to_owned())) })
}

impl Client for FormsOnly {
    fn log(&self, _: LogMessage) -> BoxFuture<'_, Result<(), ClientError>> {
        refused()
    }
    fn elicit(&self, _: ElicitRequest) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        refused()
    }
    fn sample(&self, _: SampleRequest) -> BoxFuture<'_, Result<Sample, ClientError>> {
        refused()
    }
}

impl Client for Browser {
    fn log(&self, _: LogMessage) -> BoxFuture<'_, Result<(), ClientError>> {
        refused()
    }
    fn elicit(&self, _: ElicitRequest) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        refused()
    }
    fn sample(&self, _: SampleRequest) -> BoxFuture<'_, Result<Sample, ClientError>> {
        refused()
    }
    fn elicit_url(
        &self,
        request: UrlElicitRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        self.asked.lock().unwrap().push(request);
        Box::pin(async { Ok(Elicitation::Accept(serde_json::Map::new())) })
    }
    fn elicitation_complete(&self, id: &ElicitationId) -> BoxFuture<'_, Result<(), ClientError>> {
        self.completed.lock().unwrap().push(id.clone());
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn the_client_is_asked_with_the_url_the_message_and_an_id_the_tool_gets_back() {
    let browser = Arc::new(Browser::default());
    let exec = Exec::builder("calendar").client(browser.clone()).build();
    let answer = exec
        .elicit_url("HTTPS://Auth.Example.com/connect?state=1", "Sign in")
        .await
        .unwrap();
    let Elicited::Accepted(id) = answer else {
        panic!("accepted: {answer:?}")
    };
    exec.elicitation_complete(&id).await;
    let asked = browser.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    // As a browser reads it.
    assert_eq!(asked[0].url, "https://auth.example.com/connect?state=1");
    assert_eq!(asked[0].message, "Sign in");
    assert_eq!(asked[0].id, id);
    assert_eq!(*browser.completed.lock().unwrap(), [id]);
}

#[tokio::test]
async fn a_client_that_cannot_a_bad_url_and_no_client_are_typed_refusals() {
    let forms = Exec::builder("calendar")
        .client(Arc::new(FormsOnly))
        .build();
    let unsupported = forms.elicit_url("https://example.com/", "Sign in").await;
    assert_eq!(
        unsupported,
        Err(UrlElicitError::Client(ClientError::Unsupported {
            capability: URL_ELICITATION
        }))
    );
    let browser = Arc::new(Browser::default());
    let exec = Exec::builder("calendar").client(browser.clone()).build();
    for (url, expected) in [
        ("http://example.com/", "Insecure"),
        ("ftp://example.com/", "Scheme"),
        ("/connect", "NotAbsolute"),
        ("https://ada:secret@example.com/", "Credentials"),
        ("https://ada@example.com/", "Credentials"),
        ("javascript:alert(1)", "Scheme"),
        ("https:example.com", "NotAbsolute"),
        // What a browser reads leniently is refused, not guessed at.
        ("https://example.com\\@evil.example/", "NotAbsolute"),
        ("https://exa mple.com/", "NotAbsolute"),
        ("http://127.1/", "Insecure"),
        ("http://localhost.evil.example/", "Insecure"),
        (
            "http://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
            "Insecure",
        ),
    ] {
        let Err(UrlElicitError::Url { problem, .. }) = exec.elicit_url(url, "Sign in").await else {
            panic!("{url} is refused");
        };
        let kind = match problem {
            UrlProblem::Insecure { .. } => "Insecure",
            UrlProblem::Scheme { .. } => "Scheme",
            UrlProblem::NotAbsolute { .. } => "NotAbsolute",
            UrlProblem::Credentials => "Credentials",
            other => panic!("{url}: {other}"),
        };
        assert_eq!(kind, expected, "{url}");
    }
    let long = format!("https://example.com/{}", "a".repeat(5000));
    let too_long = exec.elicit_url(&long, "Sign in").await.unwrap_err();
    assert!(
        matches!(&too_long, UrlElicitError::Url { problem: UrlProblem::TooLong, url } if url.len() == 200),
        "{too_long:?}"
    );
    assert!(
        browser.asked.lock().unwrap().is_empty(),
        "no bad URL reached the client"
    );
    // Loopback over plain HTTP is for development.
    for url in [
        "http://localhost:3000/cb",
        "http://127.0.0.1/cb",
        "http://[::1]:8080/",
        "http://LOCALHOST/cb",
        "https://b\u{fc}cher.example/anmelden",
    ] {
        assert!(exec.elicit_url(url, "Sign in").await.is_ok(), "{url}");
    }
    // Sent as a browser reads it: scheme and host in lower case.
    exec.elicit_url("HTTPS://Auth.Example.COM/Connect?state=1", "Sign in")
        .await
        .unwrap();
    assert_eq!(
        browser.asked.lock().unwrap().last().unwrap().url,
        "https://auth.example.com/Connect?state=1"
    );
    let alone = Exec::new("calendar")
        .elicit_url("https://example.com/", "Sign in")
        .await;
    assert!(
        matches!(
            alone,
            Err(UrlElicitError::Client(ClientError::NoClient { .. }))
        ),
        "{alone:?}"
    );
}
