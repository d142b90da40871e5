/**
 * The estate's Resource Graph queries (KQL), one per kind of resource. Each projects flat columns
 * that graphRows.ts validates; the order of rows is made stable (`order by id`) so that skip
 * tokens page through the same list.
 */

export const APP_SERVICE_CERTIFICATES = `resources
| where type =~ 'microsoft.web/certificates'
| project id, name, subscriptionId, resourceGroup,
  thumbprint = tostring(properties.thumbprint), expirationDate = tostring(properties.expirationDate),
  issueDate = tostring(properties.issueDate), issuer = tostring(properties.issuer),
  subjectName = tostring(properties.subjectName), hostNames = properties.hostNames,
  keyVaultId = tostring(properties.keyVaultId), keyVaultSecretName = tostring(properties.keyVaultSecretName),
  serverFarmId = tostring(properties.serverFarmId)
| order by id asc`;

export const SITE_BINDINGS = `resources
| where type =~ 'microsoft.web/sites' or type =~ 'microsoft.web/sites/slots'
| mv-expand binding = properties.hostNameSslStates
| where isnotempty(tostring(binding.thumbprint))
| project id, type, subscriptionId, hostName = tostring(binding.name),
  sslState = tostring(binding.sslState), thumbprint = tostring(binding.thumbprint)
| order by id asc`;

export const APPLICATION_GATEWAYS = `resources
| where type =~ 'microsoft.network/applicationgateways'
| project id, name, subscriptionId, resourceGroup,
  sslCertificates = properties.sslCertificates, httpListeners = properties.httpListeners
| order by id asc`;

export const FRONT_DOOR_DOMAINS = `resources
| where type =~ 'microsoft.cdn/profiles/customdomains' or type =~ 'microsoft.cdn/profiles/afdendpoints/domains'
| project id, name, subscriptionId, resourceGroup, hostName = tostring(properties.hostName),
  certificateType = tostring(properties.tlsSettings.certificateType),
  secretId = tostring(properties.tlsSettings.secret.id)
| order by id asc`;

export const FRONT_DOOR_SECRETS = `resources
| where type =~ 'microsoft.cdn/profiles/secrets'
| project id, secretType = tostring(properties.parameters.type),
  secretSourceId = tostring(properties.parameters.secretSource.id),
  expirationDate = tostring(properties.parameters.expirationDate),
  subject = tostring(properties.parameters.subject),
  certificateAuthority = tostring(properties.parameters.certificateAuthority),
  thumbprint = tostring(properties.parameters.thumbprint),
  subjectAlternativeNames = properties.parameters.subjectAlternativeNames
| order by id asc`;

export const KEY_VAULTS = `resources
| where type =~ 'microsoft.keyvault/vaults'
| project id, name, subscriptionId, resourceGroup
| order by id asc`;
