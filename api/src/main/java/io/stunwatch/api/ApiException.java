package io.stunwatch.api;

/**
 * A request the API answers with an error status and a JSON body naming the parameter and the reason. Nothing
 * else reaches the client: any other failure is a 500 with no detail, logged here.
 */
public final class ApiException extends RuntimeException {

  private final int status;
  private final String parameter;

  public ApiException(int status, String parameter, String reason) {
    super(reason, null, false, false);
    this.status = status;
    this.parameter = parameter;
  }

  public static ApiException badParameter(String parameter, String reason) {
    return new ApiException(400, parameter, reason);
  }

  public static ApiException notFound(String what) {
    return new ApiException(404, null, what + " not found");
  }

  public int status() {
    return status;
  }

  /** The offending parameter, or null. */
  public String parameter() {
    return parameter;
  }
}
