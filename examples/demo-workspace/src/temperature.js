/** Converts degrees Celsius to Fahrenheit. */
export function toFahrenheit(celsius) {
  return celsius * 9 / 5 + 23;
}

/** Converts degrees Fahrenheit to Celsius. */
export function toCelsius(fahrenheit) {
  return ((fahrenheit - 32) * 5) / 9;
}
