import { Format } from 'typebox/format'

/**
 * The string formats the contract's schemas use, checked as the API has always checked them (the
 * definitions of `ajv-formats` in its full mode, which answered every REST request before this
 * validator): TypeBox's own are broader (a quoted local part or an IP literal in an email, a space
 * between date and time), so they are replaced, once, before any schema is compiled.
 */

const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i

const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i
const DATE_TIME_SEPARATOR = /t|\s/i

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
}

/** RFC 3339 full-date, with the days of the month checked. */
function isDate(text: string): boolean {
  const matches = DATE.exec(text)
  if (!matches) return false
  const year = Number(matches[1])
  const month = Number(matches[2])
  const day = Number(matches[3])
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS[month] as number))
}

/** RFC 3339 full-time: the offset is required; a leap second only at 23:59 UTC. */
function isTime(text: string): boolean {
  const matches = TIME.exec(text)
  if (!matches) return false
  const hour = Number(matches[1])
  const minute = Number(matches[2])
  const second = Number(matches[3])
  const sign = matches[5] === '-' ? -1 : 1
  const offsetHours = Number(matches[6] ?? 0)
  const offsetMinutes = Number(matches[7] ?? 0)
  if (offsetHours > 23 || offsetMinutes > 59 || !matches[4]) return false
  if (hour <= 23 && minute <= 59 && second < 60) return true
  const utcMinute = minute - offsetMinutes * sign
  const utcHour = hour - offsetHours * sign - (utcMinute < 0 ? 1 : 0)
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61
}

function isDateTime(text: string): boolean {
  const parts = text.split(DATE_TIME_SEPARATOR)
  return parts.length === 2 && isDate(parts[0] as string) && isTime(parts[1] as string)
}

/** Each format a schema of the contract names, and its check. */
export const formatChecks: Readonly<Record<string, (value: string) => boolean>> = {
  email: (value) => EMAIL.test(value),
  'date-time': isDateTime,
}

let registered = false

/** Puts the contract's formats in TypeBox's registry (once; later calls do nothing). */
export function registerFormats(): void {
  if (registered) return
  for (const [name, check] of Object.entries(formatChecks)) Format.Set(name, check)
  registered = true
}
